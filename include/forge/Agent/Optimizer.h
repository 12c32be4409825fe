//===- Agent/Optimizer.h - The optimisation loop ----------------*- C++ -*-===//
///
/// \file
/// `forge-port optimize` without the command line. Each round measures the
/// current kernel, analyses it against the roofline, asks a Proposer for
/// transformations and validates every proposal in order, recording each
/// stage's verdict:
///
///   1. parse the edit blocks        5. compile for the target (one repair
///   2. apply them (a PatchSet)         attempt with the compiler's errors)
///   3. re-parse with Clang          6. correctness and anti-cheating checks
///   4. signature, launch contract,     against the ORIGINAL kernel (worker)
///      edit scope, the edit check   7. timing against the current kernel,
///                                      interleaved; a gain must beat noise
///
/// The fastest proposal that survives becomes the current kernel; a round
/// whose best is not faster than the noise keeps the current one (rolled
/// back). The loop ends when a round gains less than the threshold, when
/// the round limit is reached, or when the proposer has nothing new.
/// Nothing here writes the user's file: the result is text.
///
//===----------------------------------------------------------------------===//
#ifndef FORGE_AGENT_OPTIMIZER_H
#define FORGE_AGENT_OPTIMIZER_H

#include "forge/Agent/PrecisionReference.h"
#include "forge/Agent/Proposer.h"
#include "forge/Agent/SourceCheck.h"
#include "forge/Arch/TargetInfo.h"
#include "forge/Build/NvccDriver.h"
#include "forge/Experience/Experience.h"
#include "forge/Search/Archive.h"
#include "forge/Search/Islands.h"
#include "forge/Measure/Measurement.h"
#include <atomic>
#include <functional>

namespace forge::agent {

/// The evolving instructions of a model's prompts, as the evolutionary
/// search uses them (OptimizeSession adapts MetaPrompt.h's pool).
class InstructionPool {
public:
  virtual ~InstructionPool();
  /// An instruction for the next request: its id and text.
  virtual std::pair<unsigned, std::string> pick() = 0;
  /// What became of a variant the instruction produced.
  virtual void credit(unsigned Id, Verdict V, double Gain) = 0;
  /// Once a generation: drop what never helps, recombine what does.
  virtual void evolve() = 0;
  virtual Json toJson() const = 0;
};

/// One stage's verdict for one proposal.
struct StageVerdict {
  agent::Stage Stage = agent::Stage::Parse;
  bool Passed = false;
  std::string Detail; ///< the reason, or what was found
};

/// What became of one proposal.
struct ProposalRecord {
  Proposal P;
  std::vector<StageVerdict> Stages;
  /// None while the proposal is still being judged; every recorded
  /// proposal has one.
  std::optional<agent::Verdict> Verdict;
  std::string Reason;       ///< the failed stage's detail, or the timing
  std::string Diff;         ///< against the round's current source
  std::string SourcePath;   ///< the candidate file in the job directory
  bool Repaired = false;    ///< the compile stage passed after a repair
  /// The proposer's second attempt after a failed compile (its edits replace
  /// P's for every later stage); P keeps the first attempt.
  std::optional<Proposal> Repair;
  double MedianNs = 0;      ///< measured
  double Speedup = 0;       ///< over the round's current kernel
  unsigned Registers = 0;
  uint64_t StaticShared = 0;
  /// The worker's status; none unless it was checked on the GPU.
  std::optional<measure::CandidateStatus> Status;
  const StageVerdict *failedStage() const;
};

/// A measurement of one kernel version.
struct KernelSnapshot {
  double MedianNs = 0;
  double Noise = 0;         ///< relative, from the interleaved rounds
  double AchievedGBs = 0, AchievedGflops = 0;
  std::string Bound;        ///< "memory", "compute", "latency"
  double FractionOfPeak = 0;
  unsigned Registers = 0;
  uint64_t StaticShared = 0;
  double Occupancy = 0;     ///< theoretical, from the Arch database
  std::string Analysis;     ///< the text a prompt and the report show
};

struct RoundRecord {
  unsigned Number = 0;
  KernelSnapshot Before;    ///< the current kernel, measured in this round
  std::vector<ProposalRecord> Proposals;
  int Accepted = -1;        ///< index into Proposals, -1: none
  KernelSnapshot After;     ///< equals Before when nothing was accepted
  double Gain = 1.0;        ///< Before / After
  std::string Note;         ///< why the loop stopped here, if it did
  /// What the proposer considered and did not propose, with the reasons.
  std::vector<std::pair<std::string, std::string>> NotProposed;
};

/// `optimize --search evolve` (docs/evolve.md): a quality-diversity search
/// over kernel variants (a MAP-Elites archive, islands) instead of the
/// greedy keep-the-best loop.
struct EvolveOptions {
  unsigned Islands = 4;
  unsigned Population = 8;        ///< variants each island holds
  unsigned Offspring = 2;         ///< proposals each island judges a generation
  unsigned MigrationInterval = 3; ///< generations between migrations
  /// Evaluations (proposals judged, whatever became of them) the search
  /// may spend (~0u: no count, only the time); and, when above 0, the
  /// wall-clock seconds.
  unsigned Budget = 200;
  double Seconds = 0;
  uint64_t Seed = 1;
  /// Ask the proposer to combine two elites of different cells (a model
  /// answers; the built-in proposers have no crossovers).
  bool Crossover = true;
  /// The evolving instructions of the model's prompts; null: none.
  InstructionPool *Meta = nullptr;
};

struct OptimizeOptions {
  std::string File;                 ///< the user's file (read, never written)
  const measure::LaunchSpec *Spec = nullptr;
  /// The compile target of stage 5 (required).
  const arch::TargetInfo *Target = nullptr;
  /// The local GPU's target; null: none (nothing is measured or kept).
  const arch::TargetInfo *GpuTarget = nullptr;
  std::string GpuName;
  std::string WorkerPath;
  unsigned MaxRounds = 10;
  double Threshold = 0.05;          ///< a round gaining less ends the loop
  unsigned MaxProposalsPerRound = 8;
  /// Widens where edits may go: "kernel" (kernels, the device functions
  /// they call, launch configuration; the default) or "file".
  std::string Scope = "kernel";
  /// ProposalRequest::AssumeNoAlias.
  bool AssumeNoAlias = false;
  std::string JobRoot;              ///< candidates and jobs go below it
  measure::JobOptions Job;
  std::vector<std::string> NvccFlags;
  /// The user's Clang arguments for the re-parse stages.
  const SourceChecker *Checker = nullptr;
  const build::NvccDriver *Driver = nullptr;
  Proposer *Propose = nullptr;
  std::string TargetFacts;          ///< for prompts
  unsigned SmCount = 132;
  /// A gain must beat the measured noise and at least this (relative).
  double MinGain = 0.005;
  /// Outputs summed in double (PrecisionReference.h): when set, proposals
  /// are checked against it instead of the original, with a tolerance that
  /// admits the original's own distance from it (measured in round 0).
  std::optional<PrecisionReference> Precise;
  /// Replaces runMeasurement (a transcript's recorded measurements in
  /// replay mode); unset: measure on the GPU when GpuTarget is set.
  std::function<llvm::Expected<measure::MeasureReport>(const measure::MeasureRequest &)>
      Measure;
  const std::atomic<bool> *Interrupted = nullptr;
  /// Progress for a terminal: "round 2/10: 3 of 5 proposals validated".
  std::function<void(llvm::StringRef)> OnProgress;
  /// Called after every proposal's validation (the transcript's writer).
  std::function<void(unsigned Round, const ProposalRecord &)> OnRecord;
  /// Set: the evolutionary search instead of the greedy loop.
  std::optional<EvolveOptions> Evolve;
  /// The experience library (docs/experience.md): proposals are ranked by
  /// it, and what became of each goes to OptimizeResult::Experience (the
  /// caller records it). Null: neither.
  const experience::Experience *Experience = nullptr;
};

/// What the evolutionary search leaves beside the final kernel.
struct EvolveResult {
  search::Archive Archive;
  /// The winner's ancestry, the original first.
  std::vector<search::LineageStep> Lineage;
  unsigned Generations = 0;
  std::vector<search::Migration> Migrations;
  /// The meta-prompt pool at the end (MetaPrompts::toJson), when there is one.
  std::optional<Json> Instructions;
};

struct OptimizeResult {
  std::string OriginalSource, FinalSource;
  /// The original kernel's model (`forge-port analyze`'s text).
  std::string OriginalModel;
  /// The final spec when transformations changed the launch (a capped
  /// grid); equal to the input spec otherwise.
  measure::LaunchSpec FinalSpec;
  std::map<std::string, int64_t> FinalValues;
  KernelSnapshot Baseline, Final;
  std::vector<RoundRecord> Rounds;
  std::string StopReason;
  /// What proposals were checked against, in words ("the original kernel",
  /// or the precision reference with the original's distance from it).
  std::string Reference = "the original kernel";
  bool PreciseReference = false; ///< Reference is the precision reference
  bool Measured = false;            ///< false: no GPU, nothing was timed
  bool ProposerFailed = false;      ///< the proposer could not be asked
  /// Why the proposer had nothing more, when that ended the loop.
  std::vector<std::pair<std::string, std::string>> LastNotProposed;
  std::optional<measure::DeviceInfo> Device;
  /// The experience of this run: one entry per proposal judged on a GPU or
  /// rejected by a stage (OptimizeOptions::Experience).
  std::vector<experience::Entry> Experience;
  std::optional<EvolveResult> Evolve;
  double speedup() const {
    return Final.MedianNs > 0 ? Baseline.MedianNs / Final.MedianNs : 0;
  }
};

llvm::Expected<OptimizeResult> runOptimization(const OptimizeOptions &O);

/// The compile stage's detail (it goes to the model in a repair request and
/// into the transcript): the first Max errors, those located in a file
/// other than Source redacted (frontend::RedactedDiagnostic); without
/// parsed errors, the log's tail with the lines of other files redacted.
std::string compileErrorsForModel(const build::CompileResult &C, llvm::StringRef Source,
                                  unsigned Max = 8);

} // namespace forge::agent

#endif
