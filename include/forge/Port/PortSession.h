//===- Port/PortSession.h - `forge-port port` without the CLI --*- C++ -*-===//
///
/// \file
/// The port driver: for each file, the selected porting passes run for the
/// target (host and device side), their safe fixes become a patch that must
/// re-parse with no new errors, the result is written where the options say
/// (atomically; a failed file is never written), and nvcc compiles it for
/// the target (and, when the user names the source arch or the file's flags
/// do, for the source arch) to compare registers, spills, shared memory and
/// predicted occupancy. nvcc, not Clang, decides whether the
/// file builds: parse errors that nvcc does not raise mark code whose
/// findings may be incomplete, not a failure. The CLI, the CMake integration and the
/// cluster executor call this; rendering is in Report/PortReport.h.
///
//===----------------------------------------------------------------------===//
#ifndef FORGE_PORT_PORTSESSION_H
#define FORGE_PORT_PORTSESSION_H

#include "forge/Arch/TargetInfo.h"
#include "forge/Build/CompileResult.h"
#include "forge/Frontend/CompileDatabase.h"
#include "forge/Frontend/Toolchain.h"
#include "forge/Port/BuildFlags.h"
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
  /// BuildDir's database, loaded once for the run (the caller may have
  /// loaded it to list the units); null: run() loads it.
  std::shared_ptr<const frontend::CompileDatabase> Database;
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
  /// Compile the result with nvcc for the target (and the source arch when
  /// it is compared, see SourceCompile).
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
  /// The project root: a fix-it in a file under it other than the
  /// translation unit (a project header, an #included .cu) is applied once
  /// for the run, where the output can carry it (-i, --diff, -o DIR); never
  /// one in a system or CUDA header. Empty: each file's own directory.
  std::string ProjectRoot;
  /// Translation units ported at once (parses and nvcc runs).
  unsigned Jobs = 1;
  /// Project mode: the Makefiles and CMake files under ProjectRoot are read
  /// for GPU targets nvcc 13 rejects (BuildFlags.h); their replacements are
  /// applied where the output carries project files.
  bool ScanBuildFiles = false;
};

/// Whether nvcc compiled the file for the source arch too, and why.
enum class SourceCompile {
  /// Nothing named the source arch (no --from, no arch in the file's compile
  /// flags): the default sm_80 is not compared against.
  NotAsked,
  SameArch, ///< the source arch is the target
  /// A C/C++ unit nvcc compiles as host code: the same for every arch.
  HostOnly,
  Compared, ///< named by --from or the flags: the resource comparison
  /// The target compile failed: does the same text build for the source?
  TargetFailed,
};
llvm::StringRef sourceCompileName(SourceCompile S);

/// nvcc's verdict on the result: Results[0] for the target, Results[1] for
/// the source arch when it was compiled too (Source says why).
struct Validation {
  bool Ran = false;
  bool TargetOK = false;
  std::string Note; ///< why it did not run
  std::vector<build::CompileResult> Results;
  SourceCompile Source = SourceCompile::NotAsked;
  /// Results[1] exists and is ok.
  bool sourceOK() const { return Results.size() > 1 && Results[1].ok(); }
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
  /// result): they mark code whose findings may be incomplete, not errors.
  unsigned ClangOnlyParseErrors = 0;
  /// Every error of the file: the passes', Clang's and nvcc's.
  unsigned totalErrors() const { return Errors + ParseErrorsCounted + NvccErrors; }
  /// The file's launches by kernel symbol (filled when validating: the
  /// resource table's block sizes).
  FileLaunches Launches;
  /// The input and the user headers it includes, absolute (the depfile).
  std::set<std::string> Dependencies;
  std::vector<SessionMessage> Messages;
  /// Project files (absolute) holding fixes of this file that are applied.
  std::vector<std::string> ProjectFixFiles;
  /// The compiler-style diagnostics, as printed (the session prints them
  /// before the file's result, so files ported at once do not interleave).
  std::string DiagText;
  bool Failed = false; ///< errors found or the operation failed (exit 1)
  /// The port ran to the end: the findings were summed up and the result
  /// checked (not so when the patch could not be applied or re-parsed).
  bool Completed = false;
};

/// A project file (header or #included .cu) that fixes of the run's files
/// reach: patched once, however many translation units include it.
struct ProjectFileResult {
  std::string File; ///< absolute
  std::string Original, Result;
  /// The translation units whose fixes it holds.
  std::vector<std::string> From;
  unsigned Edits = 0;
  /// Why none of its fixes are applied (a re-parse found new errors);
  /// empty: Result holds them.
  std::string Rejected;
  bool Written = false;
  std::string WriteError;
  std::string DiffText; ///< --diff
};

/// A build file that names GPU targets CUDA 13 rejects (or whose code does
/// not run on the target).
struct BuildFileResult {
  std::string File; ///< absolute
  std::vector<BuildFlagFinding> Findings; ///< Note and Error only
  std::string Original, Result;
  /// Findings whose replacement is in Result (the output carries it).
  unsigned Fixed = 0;
  bool Written = false;
  std::string WriteError;
  std::string DiffText; ///< --diff
  /// Errors that the written result (or the file, when nothing is
  /// written) still has.
  unsigned openErrors(bool Writing) const;
};

struct PortResult {
  std::vector<FilePortResult> Files;
  std::vector<ProjectFileResult> ProjectFiles;
  std::vector<BuildFileResult> BuildFiles;
  bool Writing = false; ///< the run wrote (or printed) its results
  /// -o DIR: the files copied unchanged into the tree (headers, build files).
  unsigned CopiedToTree = 0;
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
  struct Unit;
  /// Parses File and runs the passes: findings and fix-its.
  llvm::Error analyze(Unit &U);
  /// Decides, in file order, which fixes are applied: those in the file, and
  /// those in project files that do not conflict with an earlier file's.
  void assignFixes(std::vector<Unit> &Units, PortResult &Out);
  /// Drops the fixes of a project file that adds parse errors to a
  /// translation unit that includes it.
  void verifyProjectFixes(std::vector<Unit> &Units, PortResult &Out);
  /// The file's patch re-parsed, nvcc's verdict, the counts, the write.
  void finish(Unit &U, const PortResult &Out);
  void writeProjectFiles(PortResult &Out);
  /// The build files under the project root, their findings and fixes.
  void scanBuildFiles(PortResult &Out);
  void writeTree(std::vector<Unit> &Units, PortResult &Out);
  /// -o DIR: that the tree can hold the copies of Sources (absolute paths;
  /// those outside the root or inside the tree are not copied): each
  /// directory on the way can be created or written, and no file there
  /// that one replaces is read-only (checkOverwrite).
  llvm::Error checkTree(const std::set<std::string> &Sources) const;
  /// Refuses, before any work, an output that cannot or must not be
  /// written: -o into a missing directory, -i or -o on a read-only file.
  llvm::Error checkOutputs() const;
  /// Project-file texts the unit includes, patched (absolute path -> text).
  std::map<std::string, std::string> patchedIncludes(const Unit &U,
                                                     const PortResult &Out) const;
  /// nvcc on R.Result for each arch, at once; Results in their order.
  Validation validate(const FilePortResult &R, const frontend::ParseOptions &PO,
                      const std::map<std::string, std::string> &Includes,
                      llvm::ArrayRef<const arch::TargetInfo *> Archs);
  std::string rootOf(const std::string &File) const;

  PortSessionOptions O;
};

/// A file the run will write (-o FILE, --depfile, --sarif-log: Flag),
/// checked before any work: its directory exists and may be written (by the
/// permission bits, so a read-only directory stays as it is even for root,
/// unless Force; and by access(2)), and it is neither a directory nor a
/// read-only file (unless Force). What names it in the message ("the SARIF
/// log "); "-" (stdout) passes.
llvm::Error checkOutputFile(llvm::StringRef Out, llvm::StringRef Flag, bool Force,
                            llvm::StringRef What = "");

/// The part of checkOutputFile for an existing file at Out: refused when
/// the run would replace it and it is read-only (its permission bits),
/// unless Force. -o DIR checks every file of the tree with it.
llvm::Error checkOverwrite(llvm::StringRef Out, bool Force);

} // namespace forge::port

#endif
