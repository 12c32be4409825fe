//===- Measure/SpecCheck.h - `forge-port spec --check` ----------*- C++ -*-===//
///
/// \file
/// Runs a kernel once under its launch spec, on this machine's GPU, under
/// compute-sanitizer's memcheck, and says which accesses left the buffers
/// the spec allocates: the check of a drafted spec (`forge-port spec`)
/// before anything is measured with it. A count the draft guessed too small
/// shows up as a read or write past the end of that buffer.
///
/// The kernel runs in forge-worker (one input set, one launch, nothing
/// timed), built with -lineinfo so that every finding names its line; the
/// worker allocates each buffer at exactly its spec's bytes, so the
/// sanitizer's "nearest allocation" names the buffer.
///
//===----------------------------------------------------------------------===//
#ifndef FORGE_MEASURE_SPECCHECK_H
#define FORGE_MEASURE_SPECCHECK_H

#include "forge/Measure/LaunchSpec.h"
#include "forge/Measure/Results.h"
#include "llvm/Support/Error.h"
#include <optional>
#include <string>
#include <vector>

namespace forge::arch {
struct TargetInfo;
}

namespace forge::measure {

/// One error compute-sanitizer reported, from its text output.
struct SanitizerFinding {
  std::string What;     ///< the headline: "Invalid __global__ read of size 4 bytes"
  std::string Space;    ///< "__global__", "__shared__", "__local__", or empty
  std::string Access;   ///< "read", "write", "atomic", or empty
  unsigned Size = 0;    ///< bytes of the access (0: not said)
  std::string Function; ///< "saxpy(int, float, const float *, float *)"
  std::string File;     ///< with -lineinfo
  unsigned Line = 0;
  std::string Thread, Block; ///< "(255,0,0)"
  std::string Address;  ///< "is out of bounds", "is misaligned"
  /// Where the address is from the nearest allocation: Offset bytes after
  /// its last byte (1: the first byte past the end) or before its first, or
  /// inside it.
  enum class Near : uint8_t { Unknown, After, Before, Inside };
  Near Relation = Near::Unknown;
  uint64_t Offset = 0;
  uint64_t AllocationBytes = 0;
  /// A device-side access (at a kernel's line); else a host-side report
  /// (an API call's error, a leak).
  bool onDevice() const { return !Function.empty(); }
};

struct SanitizerReport {
  std::vector<SanitizerFinding> Findings;
  /// "ERROR SUMMARY: N errors" (absent: the sanitizer did not finish).
  std::optional<unsigned> ErrorCount;
};

/// Reads compute-sanitizer's text output (the "=========" prefix; other
/// lines are skipped). Never fails: what it does not understand is kept as
/// a finding's headline.
SanitizerReport parseSanitizerOutput(llvm::StringRef Text);

struct SpecCheckOptions {
  std::string File;                ///< the kernel's source
  const LaunchSpec *Spec = nullptr;
  /// Values of sizes or tunables other than the spec's defaults.
  ValueMap Values;
  std::string WorkerPath, ToolDir; ///< findWorker's search
  std::string Sanitizer;           ///< empty: compute-sanitizer of the CUDA toolkit
  std::string CudaPath;
  std::vector<std::string> NvccFlags;
  std::string JobDir;              ///< empty: a temporary directory, removed
  double TimeoutS = 900;           ///< the kernel's run under memcheck
};

struct SpecCheckResult {
  std::string GpuName;
  const arch::TargetInfo *Target = nullptr;
  std::string Sanitizer; ///< the program that ran
  /// The source as given and as the harness included it (absolute): the
  /// sanitizer names the second (or its file name), the report the first.
  std::string Source, SourceIncluded;
  SanitizerReport Report;
  /// The worker's verdict on the kernel (absent when its run failed as a
  /// whole: RunError says how).
  std::optional<CandidateResult> Kernel;
  std::string RunError;
  /// Every buffer's bytes at the checked values, to name allocations.
  std::vector<std::pair<std::string, uint64_t>> BufferBytes;
  /// No finding, an error summary of 0, and the kernel ran.
  bool clean() const;
  /// The spec's buffers of Bytes bytes ("'x'", "'x' or 'y'"); empty if none.
  std::string buffersOfSize(uint64_t Bytes) const;
};

/// Builds the kernel's harness, runs it under memcheck and collects what the
/// sanitizer said. Errors: no GPU, no sanitizer, a spec that does not
/// evaluate, a harness that does not compile.
llvm::Expected<SpecCheckResult> checkSpec(const SpecCheckOptions &O);

} // namespace forge::measure

#endif
