//===- Tune/Tuner.h - A tuning run ------------------------------*- C++ -*-===//
///
/// \file
/// `forge-port tune` without the command line: builds the search space
/// from the spec's tunables and constraints, prunes it against each
/// target's limits, runs a strategy whose batches are compiled together and
/// measured by forge-worker against the original, keeps every measurement
/// in the tuning database (so runs resume and repeat for free), and picks
/// each target's values: measured on the local GPU's target, predicted for
/// the others (labelled so).
///
//===----------------------------------------------------------------------===//
#ifndef FORGE_TUNE_TUNER_H
#define FORGE_TUNE_TUNER_H

#include "forge/Arch/TargetInfo.h"
#include "forge/Build/NvccDriver.h"
#include "forge/Measure/Measurement.h"
#include "forge/Tune/Database.h"
#include "forge/Tune/Strategy.h"
#include <atomic>

namespace forge::tune {

struct TuneProgress {
  size_t Done = 0, Total = 0; ///< distinct configurations measured / budget
  std::optional<double> BestNs;
  std::string BestKey;
  double ElapsedS = 0, EtaS = 0;
  std::string Last; ///< "BLOCK=128: ok 215.6 us"
};

/// How a run with a GPU uses the database record of its key (the kernel,
/// its source identity, this GPU, the sizes and the toolkit).
enum class Retune {
  Resume, ///< reuse the record's measurements and measure the rest
  /// A complete record: its values, nothing measured (the build's
  /// `RETUNE AUTO`); otherwise as Resume.
  Auto,
  Always, ///< measure every configuration again; the record is replaced
};

struct TuneOptions {
  std::string Source;
  /// The file whose identity keys the database when Source is a generated
  /// copy of it (the CMake integration tunes the ported source in the build
  /// tree, keyed on the user's file); empty: Source.
  std::string IdentitySource;
  /// Further files the key covers (the headers of port's depfile).
  std::vector<std::string> IdentityFiles;
  Retune Mode = Retune::Resume;
  const measure::LaunchSpec *Spec = nullptr;
  std::vector<const arch::TargetInfo *> Targets;
  /// The local GPU's target; null: no GPU (values are predicted).
  const arch::TargetInfo *GpuTarget = nullptr;
  std::string GpuName;              ///< "NVIDIA H200"
  std::string Strategy = "exhaustive";
  Budget Limit;
  uint64_t Seed = 1;
  std::string DbPath;   ///< empty: no database
  /// Replay mode: measure nothing; every configuration's result comes from
  /// this tuning database's record of the kernel on the first target (any
  /// GPU). For comparing strategies on recorded measurements.
  std::string ReplayPath;
  std::string Toolkit;  ///< "13.0", part of the database key
  unsigned BatchSize = 32;       ///< configurations per job (worker run)
  /// true: a job's configurations share harnesses, one per compile thread
  /// (all of them in one nvcc run on one thread); false: one nvcc run per
  /// configuration.
  bool Batched = true;
  unsigned CompileJobs = 0;      ///< parallel nvcc runs; 0: the CPU count
  std::string WorkerPath;
  /// Where the worker runs (Measure/Executor.h); null: on this machine's
  /// GPU. With a cluster executor, GpuTarget and GpuName are its
  /// partition's and WorkerPath is the worker as its nodes see it.
  measure::Executor *Exec = nullptr;
  std::string JobRoot;           ///< job directories go below it
  measure::JobOptions Job;
  std::vector<std::string> NvccFlags;
  /// For tunables the harness cannot set (not in the spec's template
  /// arguments, geometry or scalars: an unroll count, a macro or constant
  /// read by the kernel body): the path of a copy of Source with a
  /// configuration's values written in. Unset: every configuration is the
  /// same source.
  std::function<llvm::Expected<std::string>(const std::map<std::string, int64_t> &)>
      SourceFor;
  /// Program mode (`tune --run`): each configuration's values are written
  /// into a copy of Source (SourceFor covers every tunable), the copy is
  /// built into the user's program and run as Command ("{exe}" is the
  /// program; Measure/ProgramMode.h). A configuration costs the spec
  /// kernel's CUPTI time per run (the median over Runs runs of the sum of
  /// its launches), and one whose program fails, or prints other output
  /// than the original's, is rejected. Command empty: the spec's harness
  /// measures.
  struct ProgramOptions {
    std::string Command;
    unsigned Runs = 3;
    std::string InjectLibrary; ///< libforge-inject.so, beside the worker
    std::vector<std::string> IgnoreLines;
    /// Run after each run; its output is compared instead (ProgramRequest).
    std::string CheckCommand;
    unsigned TimeoutSeconds = 600;
  } Program;
  const build::NvccDriver *Driver = nullptr;
  const std::atomic<bool> *Interrupted = nullptr;
  std::function<void(const TuneProgress &)> OnProgress;
  /// Called once the run knows it will measure (some configuration is not
  /// in the database), before the first compile: work the write-back needs
  /// anyway can start beside the sweep. An error stops the run before
  /// anything is measured (the values could not be written back).
  std::function<llvm::Error()> OnMeasureStart;
  /// Called after a job's compiles and before anything of it runs: an error
  /// ends the run with it, nothing measured and nothing saved (the
  /// write-back's binding, checked beside the compiles).
  std::function<llvm::Error()> BeforeFirstRun;
};

struct ConfigResult {
  std::string Key;
  std::map<std::string, int64_t> Values;
  measure::CandidateStatus Status = measure::CandidateStatus::Missing;
  double CostNs = 0, MedianNs = 0, Noise = 0;
  std::string Detail;
  bool FromDatabase = false;
  std::string Target, Gpu; ///< where it was measured
  unsigned Registers = 0;
  uint64_t StaticShared = 0;
};

struct TargetResult {
  const arch::TargetInfo *Target = nullptr;
  bool Measured = false;  ///< false: predicted (no such GPU here)
  std::string Gpu;
  std::string Basis;      ///< how the values were chosen, in words
  std::map<std::string, int64_t> Best;
  std::string BestKey;
  double BaselineNs = 0;  ///< the original configuration
  double BestNs = 0;
  double Speedup = 0, Noise = 0; ///< from the final interleaved measurement
  double PredictedOccupancy = 0;
  /// Set when the final check was not run again: the tuning database
  /// recorded, on this date, that the same tuned text passed it (Speedup
  /// and Noise are that check's).
  std::string CheckedOn;
};

struct TuneResult {
  std::string Strategy;
  uint64_t Seed = 0;
  uint64_t SpaceSize = 0;  ///< cartesian
  size_t ValidConfigs = 0; ///< after constraints and target limits
  std::vector<Parameter> Space;
  std::vector<ConfigResult> Configs; ///< every configuration evaluated
  std::vector<TargetResult> Targets;
  size_t Measured = 0;         ///< configurations measured in this run
  size_t Reused = 0;           ///< taken from the database
  double CompileSeconds = 0, RunSeconds = 0, WallSeconds = 0;
  double ConfigsPerMinute = 0; ///< measured in this run over wall time
  bool Interrupted = false;
  bool Replayed = false;       ///< results came from ReplayPath
  /// Retune::Auto found a complete record: nothing was measured, and the
  /// values are not checked on the GPU again.
  bool FromDatabaseOnly = false;
  /// No record matched the source's identity: the values are those of the
  /// newest records of the same kernel and sizes from an earlier version
  /// of the source; StaleNote says so, for a warning.
  bool Stale = false;
  std::string StaleNote;
  std::string DefaultKey;      ///< the original configuration
  /// The original at its values, as this run measured it (the reference of
  /// every batch), in the configurations' cost units; 0 when not measured.
  /// A sweep whose best configuration costs more keeps the original values.
  double OriginalCostNs = 0;
  /// In replay mode: the best of the whole record (the exhaustive optimum
  /// when the record is complete) and the fraction of it the run reached.
  double OptimumNs = 0;
};

llvm::Expected<TuneResult> runTuning(const TuneOptions &Opts);

/// The key of the database record a run with Opts reads and writes: the
/// kernel, the identity of its source, the GPU's target and name, the size
/// bucket and the toolkit.
llvm::Expected<DbKey> databaseKey(const TuneOptions &Opts);

/// Whether a kernel name as CUPTI reports it, demangled ("void
/// ns::triad<8>(float*, int)"), names Kernel ("triad" or "ns::triad"), any
/// template arguments.
bool namesKernel(llvm::StringRef Demangled, llvm::StringRef Kernel);

/// The final check before anything is written: the tuned source
/// (TunedSource, the write-back applied) at the measured target's values
/// against the original at its defaults, in one interleaved measurement.
/// Fills in each measured target's speed-up and noise; fails when the tuned
/// source does not pass. Does nothing without a GPU or in replay mode.
llvm::Error verifyTuned(const TuneOptions &Opts, TuneResult &R,
                        llvm::StringRef TunedSource);

/// The spec tunables the harness cannot set: named in none of the template
/// arguments, the geometry, the scalars or the buffer counts.
std::vector<std::string> sourceOnlyTunables(const measure::LaunchSpec &Spec);

/// The space of Spec's tunables, valid where the constraints hold and the
/// geometry can launch on every target in Targets (threads per block,
/// dynamic shared memory against the opt-in limit).
llvm::Expected<SearchSpace>
buildSearchSpace(const measure::LaunchSpec &Spec,
                 llvm::ArrayRef<const arch::TargetInfo *> Targets);

} // namespace forge::tune

#endif
