//===- Agent/OptimizeSession.h - `forge-port optimize` without the CLI -*- C++ -*-===//
///
/// \file
/// The optimize driver: it composes the proposer (the built-in expert rules,
/// a model, or a recorded transcript) with the tuner's sweep as a proposal
/// of its own, runs the loop of Optimizer.h on the local GPU (or up to the
/// compile stage without one), keeps the transcript (never a key), compares
/// a replay with its recording, and writes the optimised source where the
/// options say. Rendering (rounds, reports) is in Report/OptimizeReport.h.
///
//===----------------------------------------------------------------------===//
#ifndef FORGE_AGENT_OPTIMIZESESSION_H
#define FORGE_AGENT_OPTIMIZESESSION_H

#include "forge/Agent/ExpertRule.h"
#include "forge/Agent/ModelClient.h"
#include "forge/Agent/Optimizer.h"
#include "forge/Agent/Transcript.h"
#include "forge/Frontend/Toolchain.h"
#include "forge/Measure/Measurement.h"
#include "forge/Support/Output.h"
#include <atomic>
#include <memory>
#include <optional>

namespace forge::agent {

struct OptimizeSessionOptions {
  std::string File;
  const measure::LaunchSpec *Spec = nullptr; ///< required
  std::string SpecPath;                      ///< for the transcript
  const arch::TargetInfo *Target = nullptr;  ///< required
  /// Who proposes: a recorded transcript (ReplayPath), else a model (Model),
  /// else the expert rules in Rules.
  std::string ReplayPath;
  std::optional<ModelConfig> Model;
  std::vector<const RuleInfo *> Rules;
  /// ProposalRequest::AssumeNoAlias.
  bool AssumeNoAlias = false;
  /// The tuner's sweep of the spec's tunables as a proposal (with a GPU).
  bool Tuner = true;
  size_t TuneBudget = 64;
  std::string TuneDb;
  /// The loop (Optimizer.h's defaults).
  unsigned MaxRounds = 10;
  double Threshold = 0.05;
  unsigned ProposalsPerRound = 8;
  std::string Scope = "kernel";
  /// What proposals are checked against: "auto" (the precision reference
  /// when the kernel sums floats with atomics, PrecisionReference.h; the
  /// original otherwise) or "original".
  std::string Reference = "auto";
  /// The local GPU; none: proposals are validated up to the compile stage.
  std::optional<measure::LocalGpu> Gpu;
  measure::JobOptions Job;
  std::string JobDir; ///< empty: a temporary directory, removed afterwards
  std::string BuildDir;
  std::vector<std::string> ExtraArgs;
  std::string CudaPath;
  const frontend::Toolchain *Toolchain = nullptr; ///< required
  OutputChoice Output;
  std::string TranscriptPath; ///< empty: none is written
  std::string ToolVersion;    ///< "forge-port 0.1.0", for the transcript
  std::string Date;           ///< "2026-12-01", for the transcript
  const std::atomic<bool> *Interrupted = nullptr;
  /// `--search evolve` (docs/evolve.md); none: the greedy loop.
  std::optional<EvolveOptions> Evolve;
  /// The experience library's file (docs/experience.md): read before the
  /// run to rank proposals, what became of them merged into it after; empty:
  /// none is read or written.
  std::string ExperiencePath;
  std::function<void(llvm::StringRef)> OnProgress;
  std::function<void(unsigned Round, const ProposalRecord &)> OnRecord;
};

struct OptimizeSessionResult {
  OptimizeResult Result;
  TranscriptInfo Info;
  /// The change as a unified diff (empty: nothing changed).
  std::string Diff;
  /// A replay: each decision that differs from the recording (none: the
  /// same decisions).
  bool Replayed = false;
  std::vector<std::string> ReplayDifferences;
  /// What went into the experience library ("12 entries merged into
  /// ~/.cache/forge/experience.json"), or why nothing did; empty without one.
  std::string ExperienceNote;
  /// Why there is no precision reference ("the kernel has no float
  /// atomicAdd into a buffer"); empty when there is one or none was asked.
  std::string NoPrecisionReference;
  /// The proposer could not be asked, or a replay diverged (exit 1).
  bool failed() const { return Result.ProposerFailed || !ReplayDifferences.empty(); }
};

class OptimizeSession {
public:
  explicit OptimizeSession(OptimizeSessionOptions O);
  ~OptimizeSession();
  /// Fails on bad options (a threshold outside [0, 1), an unknown scope,
  /// a replay together with a model), an unreadable or malformed
  /// transcript (the error names the JSON path), or a loop that cannot run.
  llvm::Expected<OptimizeSessionResult> run();
  /// The loop's options as run (for reports); valid after run().
  const OptimizeOptions &loopOptions() const { return Loop; }
  /// "expert", "model", "replay of t.json", with " + tuner".
  llvm::StringRef proposerName() const;

private:
  OptimizeSessionOptions O;
  OptimizeOptions Loop;
  std::unique_ptr<build::Nvcc> Tools;
  std::unique_ptr<SourceChecker> Checker;
  std::unique_ptr<Replay> Replayed;
  std::optional<experience::Experience> Library;
  std::unique_ptr<InstructionPool> Meta;
  std::vector<std::unique_ptr<Proposer>> Proposers;
  std::string Name;
};

} // namespace forge::agent

#endif
