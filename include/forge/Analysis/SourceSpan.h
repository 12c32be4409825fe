//===- Analysis/SourceSpan.h - Where a fact of the model comes from -*- C++ -*-===//
///
/// \file
/// The lines of the main file a fact of the kernel model was read from. The
/// model keeps lines as numbers and text as strings, so that it can be
/// rendered after the AST it was computed from is gone.
///
//===----------------------------------------------------------------------===//
#ifndef FORGE_ANALYSIS_SOURCESPAN_H
#define FORGE_ANALYSIS_SOURCESPAN_H

namespace clang {
class ASTContext;
class SourceRange;
} // namespace clang

namespace forge::analysis {

/// Lines (1-based) and the first column of a range; Line 0 when unknown (a
/// macro from a system header, an implicit node).
struct SourceSpan {
  unsigned Line = 0;
  unsigned Column = 0;
  unsigned EndLine = 0;

  bool valid() const { return Line != 0; }
  /// Lines of the expansion of R (what the user sees).
  static SourceSpan of(const clang::ASTContext &Ctx, clang::SourceRange R);
};

} // namespace forge::analysis

#endif
