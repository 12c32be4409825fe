//===- passes/optimize/FormCode.h - Source code from the kernel model -*- C++ -*-===//
///
/// \file
/// What the rules that rewrite from lib/Analysis's model (transpose-tile,
/// coalesced-remap) share:
///
/// - FormRenderer: an index form of the model written back as C++ source
///   that computes it in 64-bit arithmetic. Forms are exact integer
///   polynomials, so the source the kernel wrote them in (int, unsigned,
///   size_t, casts, locals) no longer matters: the rendering casts the first
///   factor of every product to `long long`, and atoms the rule introduces
///   (a tile's position) are written under the names the rule gives them.
///   Only builtins, parameters and template parameters are rendered; a form
///   with anything else (a clamp, a loaded value, a loop variable) has no
///   rendering, and Why says so.
/// - effectsOf: the effects of a piece of the kernel that a rewrite would
///   repeat, reorder or drop, in words: calls to functions that are not
///   pure (printf, atomics, barriers, user functions other than one
///   `return`), inline assembly, and writes to anything but the kernel's own
///   locals (other than writes the rule accounts for).
///
//===----------------------------------------------------------------------===//
#ifndef FORGE_PASSES_OPTIMIZE_FORMCODE_H
#define FORGE_PASSES_OPTIMIZE_FORMCODE_H

#include "forge/Agent/ExpertRule.h"
#include "forge/Analysis/IndexForm.h"
#include "forge/Measure/LaunchSpec.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include <cstdint>
#include <map>
#include <optional>
#include <string>

namespace clang {
class ASTContext;
class Expr;
class FunctionDecl;
class Stmt;
} // namespace clang

namespace forge::passes {

class FormRenderer {
public:
  explicit FormRenderer(const analysis::AtomTable &T) : T(T) {}

  /// Atom A is written as Name, a 64-bit variable of the rewrite.
  void name(analysis::AtomId A, std::string Name) { Names[A] = std::move(Name); }

  /// F as source ("y * cols + x", "8 * (long long)blockIdx.x * blockDim.x");
  /// none when an atom cannot be written, with Why set.
  std::optional<std::string> render(const analysis::IndexForm &F);
  /// Lhs Op Rhs, each side rendered.
  std::optional<std::string> render(const analysis::IndexForm &Lhs, analysis::CmpOp Op,
                                    const analysis::IndexForm &Rhs);

  std::string Why;

private:
  std::optional<std::string> atomText(analysis::AtomId A);
  const analysis::AtomTable &T;
  std::map<analysis::AtomId, std::string> Names;
};

/// F as C source that is valid anywhere in the kernel: builtins, parameters,
/// template parameters, constants, and quotients and clamps of those; none
/// when an atom has no such spelling (loop variables, unknowns,
/// selections). Wide: every atom is cast to long long, so that the
/// arithmetic cannot wrap.
std::optional<std::string> renderForm(const analysis::IndexForm &F, const analysis::AtomTable &T,
                                      bool Wide);

/// The value of a form whose leaf atoms (builtins, parameters, loop
/// variables, unknowns) Leaf evaluates; quotients, remainders, min and max
/// are evaluated from their operands. None when Leaf has no value for an
/// atom, a divisor is 0, or the arithmetic overflows.
std::optional<int64_t>
evaluateForm(const analysis::IndexForm &F, const analysis::AtomTable &T,
             llvm::function_ref<std::optional<int64_t>(const analysis::Atom &)> Leaf);

/// The value of a form, with parameters bound to the spec's scalars (Env:
/// the spec's environment) and blockDim to the spec's block; none when an
/// atom has no value there.
std::optional<int64_t> evaluateForm(const analysis::IndexForm &F, const analysis::AtomTable &T,
                                    const agent::RuleInput &In, const measure::ValueMap &Env);

/// Whether some term of F has a negative coefficient: computed in unsigned
/// arithmetic, such a form may wrap around where the rendering does not.
bool hasNegativeTerm(const analysis::IndexForm &F);

/// The first effect of S (a statement or expression of Kernel) that a
/// rewrite moving or repeating S would change, in words ("calls 'printf'
/// (line 7)"), or "" when there is none. Writes to locals of the kernel
/// are not effects; AllowedWrite accepts the other lvalues a rule accounts
/// for (its store), and the calls of user functions it accounts for (its
/// store through a store helper, which the model makes an access).
std::string effectsOf(const clang::Stmt *S, const clang::FunctionDecl &Kernel,
                      clang::ASTContext &Ctx,
                      llvm::function_ref<bool(const clang::Expr *)> AllowedWrite);

} // namespace forge::passes

#endif
