//===- Build/CompileResult.h - What one nvcc run produced ------*- C++ -*-===//
///
/// \file
/// The records the nvcc driver returns: compiler diagnostics, per-kernel
/// resource usage from ptxas, and the result of one compile. A failed compile
/// is data (Status == Failed), not an llvm::Error.
///
//===----------------------------------------------------------------------===//
#ifndef FORGE_BUILD_COMPILERESULT_H
#define FORGE_BUILD_COMPILERESULT_H

#include "forge/Support/Json.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace forge::build {

enum class DiagSeverity { Note, Remark, Warning, Error, Fatal };

llvm::StringRef severityName(DiagSeverity S);

/// One message from nvcc's front end, the host compiler, ptxas or nvlink.
struct CompilerDiagnostic {
  std::string File;     ///< Empty when the message names no file.
  unsigned Line = 0;    ///< 0 when unknown.
  unsigned Column = 0;  ///< 0 when the tool gives none (nvcc's front end).
  DiagSeverity Severity = DiagSeverity::Error;
  std::string Message;
  std::string Tool;     ///< "nvcc", "ptxas", "nvlink", "host".
  std::string Code;     ///< Front-end number such as "177-D"; may be empty.
  /// For ptxas messages about a PTX line: the PTX file and line as reported.
  /// File/Line/Column then hold the CUDA source location when it could be
  /// recovered from the PTX's .loc directives, and are empty otherwise.
  std::string PtxFile;
  unsigned PtxLine = 0;

  bool isError() const {
    return Severity == DiagSeverity::Error || Severity == DiagSeverity::Fatal;
  }
  /// "file:line:col: error: message" (clang style, parts omitted if unknown).
  std::string format() const;
  bool operator==(const CompilerDiagnostic &O) const;
};

/// Resource usage of one function for one target, from `ptxas -v`.
struct KernelResources {
  std::string MangledName;
  std::string DemangledName;
  std::string Arch;          ///< "sm_90"; from ptxas, or the job's only target.
  bool IsEntry = false;      ///< A __global__ function ("Compiling entry function").
  bool HasUsage = false;     ///< A "Used N registers" line was seen.
  unsigned Registers = 0;
  unsigned Barriers = 0;
  uint64_t SharedMemBytes = 0;    ///< Static shared memory ("smem").
  uint64_t ConstantMemBytes = 0;  ///< cmem[0] (kernel parameters and constants).
  std::map<unsigned, uint64_t> ConstantBanks; ///< Every cmem[N] reported.
  uint64_t StackFrameBytes = 0;
  uint64_t SpillStoreBytes = 0;
  uint64_t SpillLoadBytes = 0;
  uint64_t CumulativeStackBytes = 0;
  double CompileMillis = 0;       ///< ptxas "Compile time", 0 if absent.

  bool hasSpills() const { return SpillStoreBytes || SpillLoadBytes; }
  bool operator==(const KernelResources &O) const;
};

enum class CompileStatus { Success, Failed, TimedOut, Crashed };

llvm::StringRef statusName(CompileStatus S);

struct CompileResult {
  CompileStatus Status = CompileStatus::Failed;
  std::vector<CompilerDiagnostic> Diagnostics;
  std::vector<KernelResources> Resources;
  std::string Log;           ///< nvcc's raw stderr (then stdout, if any).
  double Seconds = 0;        ///< Wall time of this call (small on a cache hit).
  bool CacheHit = false;
  std::string OutputPath;    ///< The output written; empty when none was kept.
  std::vector<std::string> Command; ///< argv of the nvcc run.
  int ExitCode = -1;

  bool ok() const { return Status == CompileStatus::Success; }
  unsigned errorCount() const;
  /// The resources of MangledName (or the demangled name) for Arch; Arch
  /// empty matches any target.
  const KernelResources *findKernel(llvm::StringRef Name,
                                    llvm::StringRef Arch = "") const;
};

Json toJson(const CompilerDiagnostic &D);
Json toJson(const KernelResources &K);
Json toJson(const CompileResult &R);
llvm::Expected<CompilerDiagnostic> diagnosticFromJson(const Json &J);
llvm::Expected<KernelResources> resourcesFromJson(const Json &J);
llvm::Expected<CompileResult> compileResultFromJson(const Json &J);

} // namespace forge::build

#endif
