//===- Measure/Measurement.h - Build, run and read one job -----*- C++ -*-===//
///
/// \file
/// The measurement machinery `forge-port measure`, `tune` and `optimize`
/// share: it groups the candidates by source file, generates one harness per
/// file with an entry per configuration (so a file's configurations cost one
/// nvcc run), compiles the harnesses in parallel, writes the job directory,
/// runs `forge-worker run` on it while reporting progress, and reads the
/// results back next to each candidate's compile resources.
///
//===----------------------------------------------------------------------===//
#ifndef FORGE_MEASURE_MEASUREMENT_H
#define FORGE_MEASURE_MEASUREMENT_H

#include "forge/Build/NvccDriver.h"
#include "forge/Measure/Executor.h"
#include "forge/Measure/Harness.h"
#include "forge/Measure/Results.h"
#include <functional>

namespace forge::measure {

struct MeasureCandidate {
  std::string Id;     ///< unique; "ref" is the reference's
  std::string Source; ///< the file to include
  ValueMap Values;    ///< its configuration
  std::string Label;  ///< for reports
  /// Its own spec (same buffers and arguments, another geometry or
  /// template arguments); null: the request's.
  const LaunchSpec *Spec = nullptr;
};

struct MeasureRequest {
  const LaunchSpec *Spec = nullptr;
  MeasureCandidate Reference;
  std::vector<MeasureCandidate> Candidates;
  /// The GPU's target: what the harnesses are compiled for.
  const arch::TargetInfo *Target = nullptr;
  std::vector<std::string> NvccFlags; ///< the user's, for every compile
  JobOptions Job;
  std::string JobDir;     ///< created if missing; results.jsonl is reset
  std::string WorkerPath; ///< forge-worker
  double WorkerTimeoutS = 0; ///< passed as --timeout-s when > 0
  /// Where the worker runs (Executor.h); null: here, a LocalExecutor over
  /// WorkerPath and WorkerTimeoutS.
  Executor *Exec = nullptr;
  /// The executor's view of its jobs, for the progress display.
  std::function<void(llvm::StringRef)> OnStatus;
  /// Set from a signal handler: the executor cancels what runs.
  const std::atomic<bool> *Interrupted = nullptr;
  unsigned CompileJobs = 0;  ///< 0: the hardware's threads
  /// Write the job directory (harnesses, libraries, plan) and stop.
  bool BuildOnly = false;
  /// Configurations of one file per harness (one nvcc run); more make
  /// further harnesses, compiled in parallel. 0: no limit; 1: a compile
  /// per configuration.
  unsigned MaxEntriesPerHarness = 0;
  /// How harnesses are built (docs/worker-protocol.md): device code alone
  /// (a cubin, the worker finds each kernel by its mangled name), or a
  /// shared library the worker dlopens. The default is the environment's
  /// FORGE_HARNESS ("cubin", "library"), else a cubin; code built with
  /// -rdc=true (dynamic parallelism) is always a library.
  enum class HarnessKind { Default, Cubin, Library };
  HarnessKind Harness = HarnessKind::Default;
  /// Called from another thread as result lines arrive: the candidate's
  /// result, done so far and the total.
  std::function<void(const CandidateResult &, size_t, size_t)> OnResult;
  /// Called before the compiles and before the worker starts.
  std::function<void(llvm::StringRef Phase)> OnPhase;
  /// Called after the compiles, before the worker runs; an error is the
  /// job's, and nothing runs (the tuner waits here for a check it ran
  /// beside the compiles).
  std::function<llvm::Error()> BeforeRun;
};

struct CandidateOutcome {
  MeasureCandidate Candidate;
  /// The worker's verdict; for a candidate that did not compile, a result
  /// with status CompileFailed and the first compiler error.
  CandidateResult Result;
  std::optional<build::KernelResources> Resources; ///< from ptxas -v
  std::string Harness;                             ///< the .cu in the job
};

struct MeasureReport {
  std::optional<DeviceInfo> Device;
  std::optional<Ceilings> Ceiling;
  WorkEstimate Work;
  /// The reference first, then the candidates in request order.
  std::vector<CandidateOutcome> Outcomes;
  double CompileSeconds = 0;
  double RunSeconds = 0;
  std::string WorkerLog; ///< what the worker printed on stderr
  std::optional<SandboxInfo> Sandbox; ///< the worker's "sandbox" line
};

/// Who hears of the worker's sandbox (docs/sandbox.md): the tool registers
/// a printer; runMeasurement calls it the first time in the process that a
/// job's sandbox had missing layers or was off, and never again.
using SandboxNotice = void (*)(const SandboxInfo &);
void setSandboxNotice(SandboxNotice N);
/// Calls the registered notice once per process (when there is something
/// to say); for runMeasurement and tests.
void noticeSandboxOnce(const SandboxInfo &S);

/// Builds and runs the job. Fails when the reference does not compile, the
/// worker cannot run, or the reference fails on the GPU; a candidate's
/// failure is its result.
llvm::Expected<MeasureReport> runMeasurement(const build::NvccDriver &Driver,
                                             const MeasureRequest &Req);

/// The ptxas record of Kernel (qualified name) with TemplateArgs among a
/// compile's entries: template arguments are compared without blanks, and
/// integer expressions by value. Null when none matches.
const build::KernelResources *
findKernelResources(const build::CompileResult &R, llvm::StringRef Kernel,
                    llvm::ArrayRef<std::string> TemplateArgs);

/// The GPU forge-worker sees.
struct GpuInfo {
  const arch::TargetInfo *Target = nullptr; ///< sm_90 for compute capability 9.0
  std::string Name;                         ///< "NVIDIA H200"
};

/// Asks `forge-worker info`; an error says there is no usable GPU, or one
/// whose compute capability the Arch database does not know.
llvm::Expected<GpuInfo> queryGpu(llvm::StringRef WorkerPath);
/// What `forge-worker info` printed, as a GpuInfo.
llvm::Expected<GpuInfo> parseGpuInfo(llvm::StringRef Stdout);

/// Where forge-worker is: Explicit, else $FORGE_WORKER, else next to
/// ToolDir, else on PATH.
llvm::Expected<std::string> findWorker(llvm::StringRef Explicit,
                                       llvm::StringRef ToolDir);

/// Program mode's CUPTI injection library, libforge-inject.so beside the
/// worker; an error says how to build it.
llvm::Expected<std::string> findInjectLibrary(llvm::StringRef WorkerPath);

/// The local GPU as tune and optimize use it: the worker (findWorker) and
/// what it reports (queryGpu). An error says why there is none.
struct LocalGpu {
  std::string Worker;
  const arch::TargetInfo *Target = nullptr;
  std::string Name;
};
llvm::Expected<LocalGpu> findLocalGpu(llvm::StringRef Explicit, llvm::StringRef ToolDir);

} // namespace forge::measure

#endif
