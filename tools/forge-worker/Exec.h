//===- forge-worker/Exec.h - The child that runs candidates -----*- C++ -*-===//
///
/// \file
/// The GPU side of the worker (Exec.cu): loads harness libraries, checks each
/// candidate against the reference and times it, appending one line per
/// candidate to JobDir/results.jsonl (docs/worker-protocol.md).
///
//===----------------------------------------------------------------------===//
#ifndef FORGE_WORKER_EXEC_H
#define FORGE_WORKER_EXEC_H

#include "Plan.h"
#include <string>
#include <vector>

namespace forge::worker {

struct ExecOptions {
  /// Candidate ids to run and write lines for, in plan order; empty: all
  /// (the reference included).
  std::vector<std::string> Only;
  /// The 1-based child count, written as "process" in result lines.
  unsigned Process = 1;
};

/// Runs the plan. Returns 0 when every candidate in Only has a line, 3 after
/// a sticky CUDA error (the crashed candidate's line is written first), 1
/// when the reference failed or the GPU could not be used, 2 for bad input.
/// Diagnostics go to stderr; a sticky error as "forge-worker: cuda-error:
/// <text>".
int runExec(const Plan &P, const ExecOptions &Opts);

/// `forge-worker ceilings [--refresh]`: prints the ceilings line. Returns 0,
/// or 1 when no GPU can be used.
int runCeilings(bool Refresh);

/// `forge-worker info`: prints the device line. Returns 0, or 1 without a GPU.
int runInfo();

} // namespace forge::worker

#endif
