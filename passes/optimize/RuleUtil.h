//===- passes/optimize/RuleUtil.h - What the expert rules share -*- C++ -*-===//
///
/// \file
/// Helpers for writing expert rules (ExpertRule.h):
///
/// - SourceEdit and renderEditBlocks: a rule computes its edits as byte
///   ranges of the current source, usually from Clang source ranges through
///   an EditCollector, and renders them as SEARCH/REPLACE blocks whose
///   SEARCH parts are whole lines that occur exactly once in the source.
///   parseEditBlocks + applyEditBlocks on the text give back exactly the
///   edited source.
/// - Small AST helpers: the source text of a node, CUDA builtins
///   (threadIdx.x, blockDim.x, ...), the `blockIdx.x * blockDim.x +
///   threadIdx.x` global index and the grid stride, constant integers
///   (template parameters and constexpr variables included where the AST
///   gives them).
///
/// Anything two rules need belongs here, not in both.
///
//===----------------------------------------------------------------------===//
#ifndef FORGE_PASSES_OPTIMIZE_RULEUTIL_H
#define FORGE_PASSES_OPTIMIZE_RULEUTIL_H

#include "ExpertRule.h"
#include "forge/Agent/EditBlocks.h"
#include "forge/Analysis/KernelModel.h"
#include "forge/Frontend/CudaBuiltins.h"
#include "clang/Basic/SourceLocation.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace clang {
class CUDAKernelCallExpr;
class ArraySubscriptExpr;
class CompoundStmt;
class DeclRefExpr;
class Expr;
class ForStmt;
class IfStmt;
class LangOptions;
class ParmVarDecl;
class SourceManager;
class Stmt;
class VarDecl;
} // namespace clang

namespace forge::passes {

//===----------------------------------------------------------------------===//
// Edits and SEARCH/REPLACE rendering
//===----------------------------------------------------------------------===//

/// Edits of the main file and their SEARCH/REPLACE rendering are Agent's
/// (EditBlocks.h): the tuner proposal renders the same way.
using agent::applySourceEdits;
using agent::renderEditBlocks;
using agent::SourceEdit;

/// An edit that erases [Begin, End) of Source, and the whole line with its
/// newline when nothing but blanks is left on it.
SourceEdit eraseWithLine(llvm::StringRef Source, unsigned Begin, unsigned End);

/// Lines joined with "\n" + Indent after each newline (the first line is
/// not indented: it goes where the replaced code began).
std::string indentLines(llvm::ArrayRef<std::string> Lines, llvm::StringRef Indent);

/// The leading blanks of the line that holds Offset.
llvm::StringRef lineIndent(llvm::StringRef Source, unsigned Offset);
/// The offset where the line that holds Offset begins.
unsigned lineStart(llvm::StringRef Source, unsigned Offset);

/// The characters [Begin, End) of one file that spell the tokens of R, when
/// editing them edits exactly the AST node that R covers and nothing else:
/// - R itself when both ends are plain file text;
/// - from a macro invocation to another (or to plain text, or from plain
///   text to an invocation) when R begins exactly where an invocation's
///   expansion begins and ends exactly where one's ends: `AT(out, r, c) =
///   v` or `RM(A, i, k, K)` whole; the text between is then exactly the
///   node's tokens;
/// - the text of a macro argument when R lies inside one argument of a
///   function-like macro, written in the file (not passed on by another
///   macro), that the macro's body expands exactly once and neither
///   stringises nor pastes (`r` in `AT(out, r, c)` with `#define AT(p, r,
///   c) p[(r) * n + (c)]`): the argument's text is then the node's only
///   spelling.
/// None otherwise (a part of a macro body, an argument expanded twice, ...).
std::optional<std::pair<clang::FileID, std::pair<unsigned, unsigned>>>
editableRange(const clang::SourceManager &SM, const clang::LangOptions &LO, clang::SourceRange R);

/// Whether Text can replace tokens inside a macro invocation's arguments:
/// its parentheses balance and no comma stands outside them (a comma in
/// brackets, braces or a template's <> would split the argument).
bool fitsMacroArgument(llvm::StringRef Text);

/// Builds edits from Clang locations, refusing any that are not plain text
/// of the main file (a macro expansion, a header): the first refusal is
/// kept as a reason in words, so a rule can say why it does not apply.
class EditCollector {
public:
  EditCollector(const clang::SourceManager &SM, const clang::LangOptions &LO,
                llvm::StringRef Source);
  explicit EditCollector(const RuleInput &In);

  /// Replaces the characters of R (a token range is extended to the end of
  /// its last token).
  bool replace(clang::CharSourceRange R, llvm::StringRef Text);
  /// Replaces the tokens of R.
  bool replace(clang::SourceRange R, llvm::StringRef Text);
  bool insertBefore(clang::SourceLocation Loc, llvm::StringRef Text);
  /// Inserts after the token that starts at Loc.
  bool insertAfterToken(clang::SourceLocation Loc, llvm::StringRef Text);
  /// Adds an edit computed by hand (byte offsets of the main file).
  void add(SourceEdit E) { Edits.push_back(std::move(E)); }

  /// The main-file offset of Loc, when Loc is a file location there (not
  /// inside a macro expansion).
  std::optional<unsigned> offsetOf(clang::SourceLocation Loc) const;
  /// The main-file byte range [Begin, End) of R (tokens), when it is plain
  /// text of the main file or spells exactly R's node through macro
  /// invocations or a macro argument (editableRange).
  std::optional<std::pair<unsigned, unsigned>> rangeOf(clang::SourceRange R) const;

  /// The main-file byte range of a statement, its terminating ';'
  /// included (Clang's ranges of expression statements stop before it).
  std::optional<std::pair<unsigned, unsigned>> rangeOfStatement(const clang::Stmt *S) const;

  const std::vector<SourceEdit> &edits() const { return Edits; }
  bool failed() const { return !Failure.empty(); }
  /// Why an edit was refused ("'LOAD(x)' is inside a macro expansion").
  const std::string &failure() const { return Failure; }
  llvm::StringRef source() const { return Source; }

private:
  bool refuse(clang::SourceLocation Loc, llvm::StringRef Why);

  const clang::SourceManager &SM;
  const clang::LangOptions &LO;
  llvm::StringRef Source;
  std::vector<SourceEdit> Edits;
  std::string Failure;
};

/// The outcome of a rule that made Edits: one proposal with Origin
/// "expert:<Rule>" and the rendered blocks, or NotApplicable with the
/// reason when there are no edits or they cannot be rendered.
RuleOutcome proposeEdits(const RuleInput &In, llvm::StringRef Rule, std::string Summary,
                         std::string Rationale, llvm::ArrayRef<SourceEdit> Edits,
                         std::optional<agent::SpecChange> Spec = std::nullopt);

/// The outcome of a rule that changes the launch alone (no edit of the
/// source): one proposal with Origin "expert:<Rule>" and Spec, or
/// NotApplicable when Spec changes nothing. The optimiser takes such a
/// proposal from a built-in rule only (agent::Proposal::launchOnly).
RuleOutcome proposeLaunch(const RuleInput &In, llvm::StringRef Rule, std::string Summary,
                          std::string Rationale, agent::SpecChange Spec);

/// Where a rule that replaces a kernel's body (the algorithm templates)
/// writes: the start of the line that declares the kernel (what the body
/// needs goes before it), the declaration's start and the body's braces,
/// as main-file offsets.
struct KernelBodySite {
  unsigned DeclLine = 0, Head = 0, Open = 0, Close = 0;
};
/// The site of K's Body; the error, in words, when the declaration is not
/// plain text of the file (a macro) or shares its line with other code.
llvm::Expected<KernelBodySite> kernelBodySite(const RuleInput &In, const clang::FunctionDecl &K,
                                              const clang::CompoundStmt &Body);

/// The kernel model of K (the rule's kernel unless given) with the block
/// the request knows (blockDim becomes constants), or the analysis's error.
llvm::Expected<analysis::KernelModel> kernelModel(const RuleInput &In,
                                                  const clang::FunctionDecl *K = nullptr);

/// A RuleOutcome that does not apply, with the reason.
inline RuleOutcome notApplicable(std::string Reason) {
  RuleOutcome O;
  O.NotApplicable = std::move(Reason);
  return O;
}

/// A launch a rewrite needs, reached through the spec's tunables.
struct RetunedLaunch {
  /// The tunables whose values change (name -> new value); empty when the
  /// current launch already fits.
  std::map<std::string, int64_t> Values;
  std::array<int64_t, 3> Block{{1, 1, 1}};
  /// Edits against In.Source that write Values where the source spells
  /// them (In.WriteBack).
  std::vector<SourceEdit> WriteBack;
  /// No launch of the kernel is in the file: the spec (with Values) is the
  /// only launch, and nothing is written.
  bool SpecOnly = false;
};

/// The size of the launch a kernel runs with.
struct LaunchSize {
  int64_t Threads = 0;
  std::array<int64_t, 3> Grid{{1, 1, 1}}, Block{{1, 1, 1}};
  /// Where it comes from ("the spec's launch", "the launch at line 40").
  std::string From;
};
/// The spec's geometry at the current values of its tunables, or the
/// file's first launch of the kernel with a constant grid and block; none
/// when neither is known.
std::optional<LaunchSize> launchSize(const RuleInput &In);

/// The current launch when its block Fits; otherwise the values of the
/// spec's tunables closest to the current ones (fewest changed, then the
/// spec's order of candidates) under which the spec's constraints hold and
/// the block Fits, written into the source (unless the file has no launch
/// of the kernel). Fails with the reason: no spec or block, no combination
/// fits (of at most 4096 tried), or the values cannot be written into the
/// source.
llvm::Expected<RetunedLaunch>
launchWithBlock(const RuleInput &In,
                llvm::function_ref<bool(const std::array<int64_t, 3> &)> Fits);

//===----------------------------------------------------------------------===//
// AST helpers
//===----------------------------------------------------------------------===//

/// The source text of R (tokens) as written in the file, or "" when R is
/// not a plain range of one file (for example it spans a macro).
llvm::StringRef sourceText(const clang::SourceManager &SM, const clang::LangOptions &LO,
                           clang::SourceRange R);
/// The source text of a statement or expression.
std::string textOf(const clang::Stmt *S, clang::ASTContext &Ctx);

/// The kernel's body, or null for a declaration.
const clang::CompoundStmt *kernelBody(const clang::FunctionDecl &Kernel);

/// Inner is Outer or a node below it (a walk of Outer's children; null for
/// either is false).
bool isWithin(const clang::Stmt *Inner, const clang::Stmt *Outer);
/// The line a message names for Loc: its presumed line in the file, a
/// macro's expansion at the place of the macro or its argument.
unsigned fileLineOf(clang::ASTContext &Ctx, clang::SourceLocation Loc);

/// E without parentheses, implicit casts and no-op casts written in the
/// source (static_cast, C casts) between integer types.
const clang::Expr *stripCasts(const clang::Expr *E);

/// CUDA builtins (threadIdx.x, ...) are recognised in lib/Frontend.
using frontend::BuiltinRef;
using frontend::cudaBuiltin;
using frontend::isCudaBuiltin;

/// E is `blockIdx.D * blockDim.D + threadIdx.D` in any operand order
/// (`threadIdx.x + blockDim.x * blockIdx.x`, casts allowed, the product
/// may be cast to a wider type first). Sets Dim to the component.
bool isGlobalIndex(const clang::Expr *E, char *Dim = nullptr);
/// E is `blockDim.D * gridDim.D` in either order.
bool isGridStride(const clang::Expr *E, char Dim = 'x');

/// E's value when it is a constant: an integer constant expression, or a
/// reference to a constexpr or const-initialised variable. In a template
/// pattern, an expression that depends on template parameters has no
/// value here (see isCompileTimeConstant).
std::optional<int64_t> evaluateInt(const clang::Expr *E, clang::ASTContext &Ctx);

/// E is known at compile time in every instantiation: built from literals,
/// enumerators, template parameters, constexpr or const-initialised
/// variables, sizeof/alignof and constexpr calls.
bool isCompileTimeConstant(const clang::Expr *E, clang::ASTContext &Ctx);

/// The launches `K<<<...>>>` of Kernel, or of an instantiation of its
/// template, in the file (Analysis/Allocations.h's callsOf).
std::vector<const clang::CUDAKernelCallExpr *> launchesOf(const clang::FunctionDecl &Kernel,
                                                          clang::ASTContext &Ctx);

/// The instantiations of a kernel template's pattern that have bodies (none
/// for a plain function).
std::vector<const clang::FunctionDecl *> instantiationsOf(const clang::FunctionDecl &Kernel);

/// The statement of Instance (an instantiation of Pattern's template) that
/// was instantiated from PatternStmt, found by its source range and class.
const clang::Stmt *instantiatedStmt(const clang::Stmt *PatternStmt,
                                    const clang::FunctionDecl &Instance);

/// The index of P among the kernel's parameters, when it is one.
std::optional<unsigned> paramIndex(const clang::FunctionDecl &Kernel, const clang::VarDecl *P);
/// When E (casts aside) names a kernel parameter, that parameter.
const clang::ParmVarDecl *asParam(const clang::Expr *E, const clang::FunctionDecl &Kernel);
/// When E (casts aside) names a variable, that variable.
const clang::VarDecl *asVar(const clang::Expr *E);

/// The references to V inside S.
std::vector<const clang::DeclRefExpr *> referencesTo(const clang::VarDecl *V,
                                                     const clang::Stmt *S);

/// A 64-bit integer type, spelled for source, that holds any value of
/// Bound's type plus a grid stride without overflow: Bound's own type when
/// it is 64-bit, else "long long" or "unsigned long long" by signedness.
std::string wideIndexType(const clang::Expr *Bound, clang::ASTContext &Ctx);

/// Whether the body assigns to V (=, op=, ++, --, or takes its address or
/// a non-const reference to it) anywhere other than at Except.
bool isModified(const clang::VarDecl *V, const clang::Stmt *Body,
                const clang::Stmt *Except = nullptr);

} // namespace forge::passes

#endif
