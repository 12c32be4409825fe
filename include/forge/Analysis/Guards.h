//===- Analysis/Guards.h - The conditions under which code runs -*- C++ -*-===//
///
/// \file
/// A guard is the conjunction of the conditions that hold where a statement
/// runs: the branches of enclosing `if` and `?:`, the left operands of
/// enclosing `&&` and `||`, and early exits before it in an enclosing block
/// (`if (i >= n) return;`, `if (c) continue;`). Conditions computed into a
/// bool (`bool in = x < w && y < h; if (in) ...`) are followed to their
/// definition. Each term is kept as written and, where it is a comparison
/// of integers, as a Comparison of index forms, normalised so that it
/// holds (`if (x >= n) return;` gives `x < n`).
///
/// Loop conditions are not guard terms; they are in the loop's bounds.
///
//===----------------------------------------------------------------------===//
#ifndef FORGE_ANALYSIS_GUARDS_H
#define FORGE_ANALYSIS_GUARDS_H

#include "forge/Analysis/IndexForm.h"
#include "forge/Analysis/SourceSpan.h"
#include "forge/Analysis/Uniformity.h"
#include <optional>
#include <string>
#include <vector>

namespace clang {
class Expr;
} // namespace clang

namespace forge::analysis {

/// Where a guard term comes from.
enum class GuardOrigin {
  If,           ///< an enclosing if (or its else branch)
  EarlyExit,    ///< `if (c) return;` before the statement
  LoopExit,     ///< `if (c) continue;` or `break;` before it in a loop body
  Conditional,  ///< an enclosing `?:`
  ShortCircuit, ///< the left operand of an enclosing `&&` or `||`
};

llvm::StringRef guardOriginName(GuardOrigin O);

/// One condition that holds.
struct GuardTerm {
  /// The condition as it holds, in source terms ("x < w", "!(flag[i])").
  std::string Text;
  /// The condition expression and whether it holds true or false; null
  /// after the AST is gone.
  const clang::Expr *Cond = nullptr;
  bool Holds = true;
  /// The condition as a comparison of index forms, normalised to hold; none
  /// when it is not a comparison of integers (a loaded flag, a float test).
  std::optional<Comparison> Cmp;
  /// Why Cmp is missing.
  std::string Why;
  GuardOrigin Origin = GuardOrigin::If;
  UniformityInfo Uniform;
  SourceSpan Loc;
};

/// The conjunction of the terms.
struct Guard {
  std::vector<GuardTerm> Terms;

  bool empty() const { return Terms.empty(); }
  /// "x < w && y < h"; "" when empty.
  std::string render() const;
  /// The most varying term (grid-uniform when empty): a thread-varying
  /// guard makes the guarded code divergent.
  UniformityInfo uniformity() const;
  /// The terms that are comparisons.
  std::vector<const GuardTerm *> comparisons() const;
};

} // namespace forge::analysis

#endif
