//===- Port/PortDiagnostics.h - Findings, printed and patched -*- C++ -*-===//
///
/// \file
/// Passes report through this: findings are printed by clang's
/// TextDiagnosticPrinter (carets, fix-it hints, macro notes), recorded for
/// JSON and SARIF, and their fix-its collected into a PatchSet. A file is
/// parsed once per side, so a finding reported twice is shown once.
///
//===----------------------------------------------------------------------===//
#ifndef FORGE_PORT_PORTDIAGNOSTICS_H
#define FORGE_PORT_PORTDIAGNOSTICS_H

#include "forge/Frontend/KernelIndex.h"
#include "forge/Patch/PatchSet.h"
#include "clang/Basic/Diagnostic.h"
#include "llvm/ADT/StringSet.h"
#include <memory>

namespace clang {
class TextDiagnosticPrinter;
class Preprocessor;
} // namespace clang

namespace forge::port {

enum class Severity { Note, Warning, Error };

/// A range of a file as JSON and SARIF give it: 1-based lines and columns,
/// the end exclusive (SARIF's endColumn), and the byte offset and length.
struct SourceSpan {
  unsigned Line = 0, Column = 0;
  unsigned EndLine = 0, EndColumn = 0;
  unsigned Offset = 0, Length = 0;
};

/// A fix-it: Range of File becomes Replacement.
struct FixIt {
  std::string File;
  SourceSpan Range;
  std::string Replacement;
};

struct Finding {
  std::string Pass;
  Severity Level = Severity::Warning;
  std::string Message;
  frontend::Location Loc;
  SourceSpan Span; ///< the token at Loc
  std::vector<Finding> Notes;
  /// The replacements offered, when every one of them can be applied
  /// (none inside a macro).
  std::vector<FixIt> FixIts;
  bool Fixed = false; ///< its fix-its are in the PatchSet
};

class PortDiagnostics {
public:
  /// OS may be null: the findings are recorded, not printed.
  PortDiagnostics(llvm::raw_ostream *OS, bool WarningsAsErrors);
  ~PortDiagnostics();

  /// Binds to one parse; findings before endFile() use its SourceManager.
  void beginFile(clang::SourceManager &SM, const clang::LangOptions &LO,
                 const clang::Preprocessor *PP);
  void endFile();

  /// Reports a finding. Notes follow it. Fix-its must be safe; those inside
  /// macros are dropped (and the finding says the fix was not applied).
  void report(llvm::StringRef Pass, Severity Level, clang::SourceLocation Loc,
              llvm::StringRef Message, llvm::ArrayRef<clang::FixItHint> Fixes = {},
              llvm::ArrayRef<std::pair<clang::SourceLocation, std::string>> Notes = {});

  const std::vector<Finding> &findings() const { return Findings; }
  const patch::PatchSet &patches() const { return Patches; }
  unsigned errors() const;
  unsigned warnings() const;

private:
  frontend::Location locOf(clang::SourceLocation L) const;
  /// The token at L (where a finding is shown).
  SourceSpan spanOf(clang::SourceLocation L) const;
  /// A file range (a fix-it's).
  SourceSpan spanOf(clang::CharSourceRange R) const;

  bool WarningsAsErrors;
  std::unique_ptr<clang::DiagnosticOptions> Opts;
  std::unique_ptr<clang::TextDiagnosticPrinter> Printer;
  std::unique_ptr<clang::DiagnosticConsumer> Ignore;
  std::unique_ptr<clang::DiagnosticsEngine> Engine;
  clang::SourceManager *SM = nullptr;
  const clang::LangOptions *LO = nullptr;
  std::vector<Finding> Findings;
  patch::PatchSet Patches;
  llvm::StringSet<> Seen;
};

} // namespace forge::port

#endif
