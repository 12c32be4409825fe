//===- Analysis/Loops.h - Loops and their induction variables -*- C++ -*-===//
///
/// \file
/// Every for, while and do loop of a kernel, with its induction variable:
/// start, step and bound as index forms (SCEV's `{Start,+,Step}` with an
/// exit test), the kind of step (constant, grid-stride
/// `i += blockDim.x * gridDim.x`, block-stride `i += blockDim.x`,
/// geometric `s >>= 1`), the trip count when it is constant, and whether
/// the trip count differs between threads. A loop whose variable the
/// analysis cannot follow says why.
///
//===----------------------------------------------------------------------===//
#ifndef FORGE_ANALYSIS_LOOPS_H
#define FORGE_ANALYSIS_LOOPS_H

#include "forge/Analysis/IndexForm.h"
#include "forge/Analysis/SourceSpan.h"
#include "forge/Analysis/Uniformity.h"
#include <optional>
#include <string>
#include <vector>

namespace clang {
class Stmt;
class VarDecl;
} // namespace clang

namespace forge::analysis {

enum class LoopKind { For, While, DoWhile, RangeFor };

/// How the induction variable moves.
enum class StepKind {
  Constant,    ///< by a constant (`++k`, `k += 4`)
  GridStride,  ///< by blockDim.x * gridDim.x (or its y/z kin)
  BlockStride, ///< by blockDim.x (or y/z): threads of a block share the range
  Uniform,     ///< by another uniform amount (`k += s` with s a parameter)
  Geometric,   ///< multiplied or divided (`s >>= 1`, `s *= 2`)
  Varying,     ///< by an amount that differs between threads
  Unknown,     ///< no induction variable was found
};

llvm::StringRef loopKindName(LoopKind K);
llvm::StringRef stepKindName(StepKind K);

struct Loop {
  unsigned Id = 0;
  LoopKind Kind = LoopKind::For;
  /// The loop statement; null after the AST is gone.
  const clang::Stmt *S = nullptr;
  SourceSpan Loc;
  /// The enclosing loop, -1 at the top level of the kernel.
  int Parent = -1;
  unsigned Depth = 0;

  /// The induction variable; empty when there is none.
  std::string Var;
  const clang::VarDecl *IV = nullptr;
  /// Its atom in the kernel's AtomTable (a LoopVar), and the iteration
  /// number's atom; valid when Var is set.
  AtomId VarAtom = 0, IterAtom = 0;

  std::optional<IndexForm> Start; ///< the first value
  std::optional<IndexForm> Step; ///< the additive step (Constant, GridStride, BlockStride, Uniform)
  /// Geometric: the factor (2 for `s *= 2`, -2 for `s /= 2` and `s >>= 1`).
  int64_t Factor = 0;
  StepKind StepK = StepKind::Unknown;
  /// The exit test `Var Cmp Bound` (normalised with Var on the left); none
  /// when the condition is not such a comparison.
  std::optional<IndexForm> Bound;
  CmpOp Cmp = CmpOp::LT;
  /// The exit test as written, and the rest of a conjunction
  /// (`k < K && i + k < n` keeps "i + k < n" here).
  std::string CondText, ExtraCondText;
  /// The rest of the conjunction that are comparisons of integers: they
  /// hold in the body (`i + k < n` of `k < K && i + k < n`).
  std::vector<Comparison> ExtraCmps;
  /// The number of iterations when start, step and bound are constants.
  std::optional<int64_t> TripCount;
  /// How the trip count varies between threads (thread-varying: the loop
  /// diverges).
  UniformityInfo TripUniform;
  /// The body calls __syncthreads (or a kin).
  bool HasSync = false;
  /// The body may leave the loop early (break, return, goto).
  bool HasEarlyExit = false;
  /// Why the induction variable or a bound is unknown.
  std::string Why;

  bool hasInductionVariable() const { return !Var.empty(); }
  /// The last value the variable takes, for an additive unit-step loop with
  /// a < or <= bound ("n - 1"); none otherwise.
  std::optional<IndexForm> lastValue() const;
};

/// The number of iterations of `for (v = Start; v Cmp Bound; v += Step)`
/// in closed form; none when the loop never ends (or the step is 0 and the
/// test holds at the start).
std::optional<int64_t> arithmeticTripCount(int64_t Start, int64_t Step, int64_t Bound, CmpOp Cmp);

} // namespace forge::analysis

#endif
