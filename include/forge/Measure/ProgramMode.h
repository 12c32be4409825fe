//===- Measure/ProgramMode.h - Measuring whole programs ---------*- C++ -*-===//
///
/// \file
/// Program mode (`forge-port measure app.cu [variant.cu...] --run "{exe}
/// args"`): each source is built into a program, each program is run
/// unchanged several times with the CUPTI injection library
/// (libforge-inject.so, through CUDA_INJECTION64_PATH) collecting every
/// kernel launch's time by name, and each variant's exit status and output
/// are compared with the first program's (the original's).
///
//===----------------------------------------------------------------------===//
#ifndef FORGE_MEASURE_PROGRAMMODE_H
#define FORGE_MEASURE_PROGRAMMODE_H

#include "forge/Build/NvccDriver.h"
#include <functional>
#include <optional>

namespace forge::measure {

/// One kernel's launches in one run, as libforge-inject.so reports them.
struct KernelTiming {
  std::string Name;    ///< demangled
  std::string Mangled;
  uint64_t Launches = 0;
  uint64_t Streams = 0; ///< distinct streams it ran on
  double TotalNs = 0, MedianNs = 0, MinNs = 0, MaxNs = 0;
};

struct InjectReport {
  std::string Timer; ///< "cupti", or "none" when CUPTI could not start
  uint64_t Dropped = 0;
  /// Launches still running when the program ended (left on another
  /// stream): CUPTI has no end time for them, so they are not timed.
  uint64_t Incomplete = 0;
  std::string Error;
  std::vector<KernelTiming> Kernels;
  const KernelTiming *find(llvm::StringRef Name) const;
};

/// Parses the injection library's JSON lines; errors name the line.
llvm::Expected<InjectReport> parseInjectReport(llvm::StringRef Text,
                                               llvm::StringRef Origin);

struct ProgramRun {
  int ExitCode = -1;
  bool TimedOut = false, Crashed = false;
  std::string Stdout;
  std::string Stderr;
  std::string Signal; ///< how it was killed, when Crashed
  double Seconds = 0;
  InjectReport Timing;
};

/// One kernel over all runs of a variant.
struct KernelSummary {
  std::string Name;
  uint64_t Launches = 0;       ///< per run (the first run's)
  uint64_t Streams = 0;        ///< most distinct streams in one run
  double MedianNs = 0;         ///< median of the runs' per-launch medians
  double TotalNs = 0;          ///< median of the runs' totals
  double RunSpread = 0;        ///< (max - min) / median of the runs' medians
};

/// How a program-mode variant ended.
enum class ProgramStatus {
  Ok,            ///< built, ran, and printed what the original printed
  BuildFailed,   ///< did not build
  Failed,        ///< a run failed: its exit status, a crash or a timeout
  OutputDiffers, ///< its output differs from the original's
};
/// The spelling in forge-port measure --run's text and JSON ("ok",
/// "build-failed", "failed", "output-differs").
llvm::StringRef statusName(ProgramStatus S);

struct ProgramVariant {
  std::string Source; ///< empty when the command is run as given
  std::string Label;
  std::string Executable;
  ProgramStatus Status = ProgramStatus::Ok;
  std::string Detail;
  std::vector<ProgramRun> Runs;
  std::vector<KernelSummary> Kernels; ///< by total time, largest first
  /// Most launches left running at the end of one run ("left on another
  /// stream"); their time is in no figure.
  uint64_t LeftRunning = 0;
};

struct ProgramRequest {
  std::vector<std::string> Sources; ///< none: run Command as it is
  std::string Command;              ///< "{exe}" stands for the built program
  unsigned Runs = 3;
  const arch::TargetInfo *Target = nullptr; ///< what the programs are built for
  std::vector<std::string> NvccFlags;
  std::string InjectLibrary;
  std::string JobDir;
  unsigned TimeoutSeconds = 600;
  /// Output lines matching one of these (llvm::Regex) are not compared.
  std::vector<std::string> IgnoreLines;
  /// Run after every run of a variant ("{exe}" stands for it, as in
  /// Command): it must exit 0, and its output, not the program's, is what
  /// is compared with the original's (a checker of an output file).
  std::string CheckCommand;
  std::function<void(llvm::StringRef Label, unsigned Run, unsigned Runs)>
      OnRun;
  /// Called once every program is built, before the first run.
  std::function<void()> OnBuilt;
};

/// Builds and runs every variant. Fails on a bad request (no {exe} with
/// sources, a bad pattern), when the original does not build or fails; a
/// variant's failure is its status.
llvm::Expected<std::vector<ProgramVariant>>
runProgramMode(const build::NvccDriver &Driver, const ProgramRequest &Req);

/// Stdout without the lines that match Patterns; an invalid pattern is an
/// error.
llvm::Expected<std::string>
comparableOutput(llvm::StringRef Stdout, llvm::ArrayRef<std::string> Patterns);

/// Per-kernel summaries of a variant's runs.
std::vector<KernelSummary> summarizeRuns(llvm::ArrayRef<ProgramRun> Runs);

} // namespace forge::measure

#endif
