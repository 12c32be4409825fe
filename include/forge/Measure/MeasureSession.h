//===- Measure/MeasureSession.h - `forge-port measure` without the CLI -*- C++ -*-===//
///
/// \file
/// The measure driver, in its two modes:
///
/// - spec mode: the first file at the spec's defaults is the reference, and
///   every file is measured in every requested configuration against it
///   (files with a spec of their own at that spec's defaults), through
///   forge-worker; each row gets its predicted occupancy and its place on
///   the roofline;
/// - program mode: each file is built into the user's program and run with
///   the CUPTI injection library, which times every kernel.
///
/// Rendering is in Report/MeasureReport.h.
///
//===----------------------------------------------------------------------===//
#ifndef FORGE_MEASURE_MEASURESESSION_H
#define FORGE_MEASURE_MEASURESESSION_H

#include "forge/Arch/Occupancy.h"
#include "forge/Measure/Measurement.h"
#include "forge/Measure/ProgramMode.h"
#include <functional>
#include <map>
#include <optional>

namespace forge::measure {

struct MeasureSessionOptions {
  /// The original (the reference) first, then the variants.
  std::vector<std::string> Files;
  /// Spec mode: the launch spec of the original.
  const LaunchSpec *Spec = nullptr;
  /// Configurations to measure every file in; none: the spec's defaults.
  std::vector<ValueMap> Configs;
  /// Also every valid combination of the tunables, at most MaxConfigs.
  bool AllConfigs = false;
  size_t MaxConfigs = 64;
  /// Variants measured with a spec of their own (same kernel and buffers,
  /// another launch), by file.
  std::map<std::string, LaunchSpec> OwnSpecs;
  /// Program mode: the command to run, "{exe}" standing for the program
  /// built from each file; non-empty selects program mode.
  std::string RunCommand;
  unsigned Runs = 3;
  std::vector<std::string> IgnoreOutput; ///< regexes of lines not compared
  /// Run after each run; its output is compared instead (ProgramRequest).
  std::string CheckCommand;
  double ProgramTimeoutS = 600;
  /// The compile target; null: the GPU's (forge-worker info).
  const arch::TargetInfo *Target = nullptr;
  std::string WorkerPath; ///< empty: findWorker's search from ToolDir
  std::string ToolDir;
  std::string JobDir;     ///< empty: a temporary directory, removed afterwards
  /// Build the job (harnesses, plan) and stop; needs Target and JobDir.
  bool BuildOnly = false;
  JobOptions Job;
  unsigned CompileJobs = 0;
  std::vector<std::string> NvccFlags;
  std::string CudaPath;
  /// Progress: the phase ("compile", "run") with what the job holds, each
  /// result as it arrives, and program mode's runs.
  struct JobShape {
    size_t Files = 0, Configs = 0, Candidates = 0; ///< the reference counted
    const arch::TargetInfo *Target = nullptr;
  };
  std::function<void(llvm::StringRef Phase, const JobShape &)> OnPhase;
  std::function<void(const CandidateResult &, size_t Done, size_t Total)> OnResult;
  std::function<void(llvm::StringRef Label, unsigned Run, unsigned Runs)> OnRun;
};

/// A candidate's row: its outcome, its predicted occupancy and roofline.
struct MeasureRow {
  size_t Outcome = 0; ///< index into the report's outcomes
  std::optional<arch::OccupancyResult> Occupancy;
  std::optional<RooflinePosition> Position;
};

struct MeasureSessionResult {
  const arch::TargetInfo *Target = nullptr;
  std::string JobDir;
  /// Spec mode.
  std::optional<MeasureReport> Report;
  std::vector<MeasureRow> Rows; ///< one per outcome, in order
  /// Program mode.
  std::vector<ProgramVariant> Programs;
  /// Every candidate (or variant) passed; for a build-only job, every
  /// harness compiled.
  bool AllOk = false;
};

class MeasureSession {
public:
  explicit MeasureSession(MeasureSessionOptions O) : O(std::move(O)) {}
  /// Usage errors (a bad combination of options, a spec-of spec for another
  /// kernel), no GPU, a reference that does not compile or fails are
  /// errors; a candidate's failure is its status in the result.
  llvm::Expected<MeasureSessionResult> run();

private:
  llvm::Expected<MeasureSessionResult> runSpecMode(const build::NvccDriver &Driver);
  llvm::Expected<MeasureSessionResult> runProgram(const build::NvccDriver &Driver);
  llvm::Expected<const arch::TargetInfo *> target(llvm::StringRef Worker) const;

  MeasureSessionOptions O;
};

/// "NAME=V,NAME=V" as values; every name must be a tunable or a size of
/// Spec (a usage error otherwise).
llvm::Expected<ValueMap> parseAssignments(llvm::StringRef Text, const LaunchSpec &Spec);

} // namespace forge::measure

#endif
