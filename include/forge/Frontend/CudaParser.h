//===- Frontend/CudaParser.h - Parse one CUDA file, one side -----*- C++ -*-===//
///
/// \file
/// Runs Clang over a file for the host or the device side and hands the AST
/// to a callback while it is alive. A file whose function bodies have errors
/// is still handed over: errors inside bodies do not remove declarations.
///
//===----------------------------------------------------------------------===//
#ifndef FORGE_FRONTEND_CUDAPARSER_H
#define FORGE_FRONTEND_CUDAPARSER_H

#include "forge/Frontend/CudaInvocation.h"
#include "clang/Basic/Diagnostic.h"
#include "clang/Basic/SourceLocation.h"
#include "llvm/ADT/FunctionExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/raw_ostream.h"
#include <functional>
#include <memory>
#include <map>
#include <optional>
#include <set>

namespace clang {
class ASTContext;
class CompilerInstance;
class TextDiagnosticPrinter;
} // namespace clang

namespace forge::frontend {

/// Prints parse diagnostics once even though a file is parsed for two
/// sides, shows only errors unless asked, and downgrades the errors that
/// nvcc accepts (see NvccCompatPrelude.cpp) to warnings.
class ParseDiagnostics : public clang::DiagnosticConsumer {
public:
  /// OS may be null to print nothing (error counting only).
  explicit ParseDiagnostics(llvm::raw_ostream *OS, bool ShowWarnings = false);
  ~ParseDiagnostics() override;

  void BeginSourceFile(const clang::LangOptions &LO,
                       const clang::Preprocessor *PP) override;
  void EndSourceFile() override;
  void finish() override;
  void HandleDiagnostic(clang::DiagnosticsEngine::Level Level,
                        const clang::Diagnostic &Info) override;

  unsigned errors() const { return Errors; }
  unsigned downgraded() const { return Downgraded; }
  /// Every error reported, duplicates and downgraded ones included.
  unsigned rawErrors() const { return RawErrors; }
  /// Messages of the errors shown, "file:line:col: message".
  const std::vector<std::string> &errorMessages() const { return ErrorMessages; }
  /// What tells the errors shown apart (place, level and message), one per
  /// message: the parses of two sides merged say each error once.
  const std::vector<std::string> &errorKeys() const { return ErrorKeys; }
  /// Called for every error of the current parse, shown or not (passes use
  /// it to recognise code that CUDA 13 no longer accepts).
  std::function<void(const clang::Diagnostic &)> OnError;
  /// When it returns true for an error (its formatted message, and the
  /// diagnostic: its location and ranges), the error is not shown or
  /// counted here: whoever set it reports the error itself. OnError still
  /// sees it.
  std::function<bool(llvm::StringRef Message, const clang::Diagnostic &Info)> Explains;
  /// Distinct errors that Explains took over.
  unsigned explained() const { return Explained; }
  /// Messages of errors located outside the main file are replaced by
  /// RedactedDiagnostic (their text may quote a file an edit included, and
  /// they go back to a model and into transcripts).
  bool RedactOtherFiles = false;

private:
  std::unique_ptr<clang::DiagnosticOptions> PrinterOpts;
  std::unique_ptr<clang::TextDiagnosticPrinter> Printer;
  bool ShowWarnings;
  bool LastShown = false;
  unsigned Errors = 0;
  std::vector<std::string> ErrorKeys;
  unsigned Downgraded = 0;
  unsigned RawErrors = 0;
  unsigned Explained = 0;
  llvm::StringSet<> Seen;
  std::vector<std::string> ErrorMessages;
};

/// What an error located outside the main file says instead.
inline constexpr llvm::StringLiteral RedactedDiagnostic =
    "[redacted: diagnostic located in another file]";

/// The preprocessor facts a consumer may need after parsing.
struct PreprocessorFacts {
  /// Ranges the preprocessor skipped (inactive #if blocks) in the main file
  /// and project headers.
  std::vector<clang::SourceRange> Skipped;
  /// The user's files the preprocessor entered (the main file and the
  /// headers it includes, not system headers or the prelude), absolute:
  /// what a depfile lists.
  std::set<std::string> Files;
};

/// Called with the AST of one side. The CompilerInstance gives the
/// Preprocessor (macros) and the SourceManager.
using ASTCallback = llvm::function_ref<void(clang::ASTContext &,
                                            clang::CompilerInstance &,
                                            const PreprocessorFacts &)>;

struct ParseRequest {
  std::string File;
  Side S = Side::Host;
  /// Parse these contents instead of the file on disk (re-parse checks).
  std::optional<std::string> Contents;
  /// Other files (absolute paths, such as patched project headers) read
  /// with these contents instead of what is on disk.
  std::map<std::string, std::string> Overlay;
  /// Called before parsing starts (to add preprocessor callbacks).
  std::function<void(clang::CompilerInstance &)> OnBegin;
};

/// Parses one side and calls OnAST. Fails only when Clang could not run at
/// all (bad command line, unreadable file); errors in the code are reported
/// through Diags and counted there.
llvm::Error parseCuda(const Toolchain &TC, const ParseOptions &Opts,
                      const ParseRequest &Req, ParseDiagnostics &Diags,
                      ASTCallback OnAST);

/// True when Loc is in a file the user owns: not a system header, not the
/// CUDA toolkit, not Clang's resource directory, not the prelude.
bool isUserLocation(const clang::SourceManager &SM, clang::SourceLocation Loc);

/// Checks that Path can be parsed as CUDA: it exists, is a regular text file
/// and has a C/C++/CUDA extension. The error says which of these failed.
llvm::Error checkCudaInput(llvm::StringRef Path);

/// For a subcommand that needs a kernel of Path (spec, analyze, measure,
/// tune, propose, optimize): a C unit (isCUnit, with Path's command in
/// BuildDir's database, then ExtraArgs) is refused, since nvcc compiles it
/// with the host compiler and it has no kernels; checkCudaInput judges it
/// first. Any other file passes (its parse judges it).
llvm::Error checkKernelInput(llvm::StringRef Path, llvm::StringRef BuildDir,
                             llvm::ArrayRef<std::string> ExtraArgs);

} // namespace forge::frontend

#endif
