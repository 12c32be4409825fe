//===- Port/PortSession.h - `forge-port port` without the CLI --*- C++ -*-===//
///
/// \file
/// The port driver: for each file, the selected porting passes run for the
/// target (host and device side), their safe fixes become a patch that must
/// re-parse with no new errors, the result is written where the options say
/// (atomically; a failed file is never written), and nvcc compiles it for
/// the target and the source arch to compare registers, spills, shared
/// memory and predicted occupancy. nvcc, not Clang, decides whether the
/// file builds: parse errors that nvcc does not raise are regions whose
/// findings may be incomplete, not a failure. The CLI, the CMake integration and the
/// cluster executor call this; rendering is in Report/PortReport.h.
///
//===----------------------------------------------------------------------===//
#ifndef FORGE_PORT_PORTSESSION_H
#define FORGE_PORT_PORTSESSION_H

#include "forge/Arch/TargetInfo.h"
#include "forge/Build/CompileResult.h"
#include "forge/Frontend/Toolchain.h"
#include "forge/Port/PortDiagnostics.h"
#include "forge/Port/PortPass.h"
#include "forge/Port/PortRunner.h"
#include "forge/Port/ResourceTable.h"
#include "forge/Support/Output.h"
#include "llvm/Support/raw_ostream.h"
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace forge::port {

struct PortSessionOptions {
  std::vector<std::string> Files;
  const arch::TargetInfo *Target = nullptr; ///< required
  /// The arch the code was written for, for the resource comparison; null:
  /// the arch in the file's compile flags, else sm_80.
  const arch::TargetInfo *Source = nullptr;
  std::string BuildDir;               ///< compile_commands.json; empty: none
  std::vector<std::string> ExtraArgs; ///< the user's Clang arguments
  std::vector<const PassInfo *> Passes;
  OutputChoice Output;
  /// With -o FILE: a Makefile-style depfile of FILE (the input and the
  /// user headers it includes, on either side), for a build system.
  std::string DepfilePath;
  /// The target the depfile names (a build step's final output when -o is
  /// an intermediate); empty: the -o file.
  std::string DepfileTarget;
  bool WarningsAsErrors = false;
  /// -i rewrites, and -o overwrites, a file without write permission.
  bool Force = false;
  /// Compile the result with nvcc for the target (and the source arch).
  bool Validate = true;
  std::string CudaPath;         ///< empty: the usual places
  unsigned ValidateTimeoutS = 0; ///< per nvcc run; 0: the driver's default
  /// Threads per block for the occupancy of kernels with no launch whose
  /// block size is a compile-time constant.
  unsigned AssumedBlockThreads = 256;
  /// Where the compiler-style diagnostics are printed as they are found:
  /// the passes' findings (DiagOS) and Clang's parse errors (ParseDiagOS);
  /// null: nowhere (the result and JSON/SARIF carry them).
  llvm::raw_ostream *DiagOS = nullptr;
  llvm::raw_ostream *ParseDiagOS = nullptr;
  const frontend::Toolchain *Toolchain = nullptr; ///< required
};

/// nvcc's verdict on the result: Results[0] for the target, Results[1] for
/// the source arch when it differs.
struct Validation {
  bool Ran = false;
  bool TargetOK = false;
  std::string Note; ///< why it did not run
  std::vector<build::CompileResult> Results;
};

/// A message of the run about one file, in the order it arose.
struct SessionMessage {
  enum class Kind { Note, Error, CompilerDiagnostic };
  Kind K = Kind::Note;
  std::string Text;
  /// Arose after the file's findings were summed up (writing the result).
  bool AfterSummary = false;
};

struct FilePortResult {
  std::string File;
  const arch::TargetInfo *Target = nullptr, *Source = nullptr;
  /// The file could not be ported at all (unreadable, not CUDA, Clang
  /// failed): the reason; nothing else below is set.
  std::string Failure;
  std::vector<Finding> Findings;
  unsigned Errors = 0, Warnings = 0;
  unsigned Fixed = 0; ///< findings whose fixes are in the patch of this file
  std::vector<std::string> ParseErrors;
  /// Parse errors the result still has (the patched text when written).
  unsigned RemainingParseErrors = 0;
  std::string Original, Result; ///< Result: with the safe fixes when Patched
  bool Patched = false;
  /// The patch as a unified diff (Diff output), empty when not patched.
  std::string DiffText;
  Validation Check;
  /// nvcc's errors on the result (at least 1 when it fails).
  unsigned NvccErrors = 0;
  /// Parse errors counted as errors: those left in the result unless nvcc
  /// compiles it, and those only an unwritten patch removes.
  unsigned ParseErrorsCounted = 0;
  /// Parse errors of the result that nvcc does not raise (it compiles the
  /// result): regions whose findings may be incomplete, not errors.
  unsigned ClangOnlyParseErrors = 0;
  /// Every error of the file: the passes', Clang's and nvcc's.
  unsigned totalErrors() const { return Errors + ParseErrorsCounted + NvccErrors; }
  /// The file's launches by kernel symbol (filled when validating: the
  /// resource table's block sizes).
  FileLaunches Launches;
  /// The input and the user headers it includes, absolute (the depfile).
  std::set<std::string> Dependencies;
  std::vector<SessionMessage> Messages;
  bool Failed = false; ///< errors found or the operation failed (exit 1)
  /// The port ran to the end: the findings were summed up and the result
  /// checked (not so when the patch could not be applied or re-parsed).
  bool Completed = false;
};

struct PortResult {
  std::vector<FilePortResult> Files;
  bool failed() const;
};

class PortSession {
public:
  explicit PortSession(PortSessionOptions O) : O(std::move(O)) {}
  /// Ports every file. Fails on a usage error (bad options, an unknown arch
  /// in a compilation database); a file that cannot be ported is a result
  /// with its Failure. OnFile is called after each file, so a caller can
  /// render as the run goes.
  llvm::Expected<PortResult>
  run(std::function<void(const FilePortResult &)> OnFile = nullptr);

private:
  llvm::Expected<FilePortResult> portFile(const std::string &File);
  /// Refuses, before any work, an output that cannot or must not be
  /// written: -o into a missing directory, -i or -o on a read-only file.
  llvm::Error checkOutputs() const;
  Validation validate(const FilePortResult &R, const frontend::ParseOptions &PO);

  PortSessionOptions O;
};

} // namespace forge::port

#endif
