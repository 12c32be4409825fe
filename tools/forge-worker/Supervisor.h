//===- forge-worker/Supervisor.h - One child per batch, with timeouts -*- C++ -*-===//
///
/// \file
/// `forge-worker run`: starts a child process (`forge-worker exec`) for the
/// candidates without a result line, watches the `progress` file, kills a
/// child that spends too long on one candidate, records the candidate a dead
/// child was on as crashed or timeout, and starts a fresh child for the
/// rest. Plain POSIX, no CUDA, so CI tests it with a fake child.
///
//===----------------------------------------------------------------------===//
#ifndef FORGE_WORKER_SUPERVISOR_H
#define FORGE_WORKER_SUPERVISOR_H

#include "Plan.h"
#include <optional>
#include <string>
#include <vector>

namespace forge::worker {

struct SuperviseOptions {
  /// argv of the child, before "--only IDS --process N"; e.g.
  /// {"/path/forge-worker", "exec", JobDir}.
  std::vector<std::string> ChildArgv;
  /// Candidates to run; empty: every candidate of the plan.
  std::vector<std::string> Only;
  /// Overrides the plan's candidate_timeout_s when > 0.
  double CandidateTimeoutS = 0;
  /// How often the progress file is polled.
  double PollS = 0.05;
  /// Upper bound on children started (a safety net against a child that
  /// dies before it makes progress).
  unsigned MaxChildren = 0; ///< 0: number of candidates + 1
  /// The sandbox mode (docs/sandbox.md): the plan's unless overridden.
  /// Except when it is off, the child starts with the secrets taken out of
  /// its environment, and its private directory (JOB/sandbox-tmp) is
  /// removed after it.
  std::optional<measure::SandboxMode> Sandbox;
};

/// Runs the job and returns the supervisor's exit status (0, 1 or 2, see
/// docs/worker-protocol.md). Messages go to stderr.
int supervise(const Plan &P, const SuperviseOptions &Opts);

/// The ids that already have a "candidate" (or "reference-failed") line in
/// JobDir/results.jsonl.
std::vector<std::string> finishedIds(const std::string &JobDir);

/// Appends Line (no newline) to JobDir/results.jsonl with one write(); a
/// candidate's line first gets the sandbox's denials for it
/// (sandbox::annotateResultLine) unless Annotate is false.
bool appendResultLine(const std::string &JobDir, const std::string &Line,
                      bool Annotate = true);

/// The value of the string field Key in a one-line JSON object the worker
/// wrote, unescaped; empty when absent.
std::string stringField(const std::string &Line, const std::string &Key);

/// Removes Path and everything below it (not following links); true when
/// nothing is left.
bool removeTree(const std::string &Path);

/// Escapes S as a JSON string literal, quotes included.
std::string jsonQuote(const std::string &S);

} // namespace forge::worker

#endif
