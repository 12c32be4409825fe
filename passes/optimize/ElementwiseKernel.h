//===- passes/optimize/ElementwiseKernel.h - An elementwise map, located -*- C++ -*-===//
///
/// \file
/// What vectorize and grid-stride rewrite, stated over the kernel model
/// (lib/Analysis) and then located in the source:
///
/// - the model's elementwise pattern (every global access of the kernel at
///   one index, no atomics, no shared memory), one-dimensional: the index
///   is `blockIdx.x * blockDim.x + threadIdx.x` (in any spelling, through
///   locals and casts) plus at most an offset every thread shares;
/// - that index held in a local `i`, and a guard term `i < bound` (or
///   `<=`) with a grid-uniform bound, from an `if (...)` around the body
///   (`if (i < n && c)`: c stays per element) or an early exit before it
///   (`if (i >= n) return;`, `if (i >= n || c) return;`: the rest of the
///   kernel is the body); or, when the caller allows it, a grid-stride loop
///   `for (T i = <index>; i < n; i += blockDim.x * gridDim.x)`;
/// - a body whose values come from the element's own loads, the index, and
///   values every thread of the grid shares: no other thread-varying or
///   block-varying value (`threadIdx.x`, `blockIdx.x`, a local computed
///   from them before the guard), no `gridDim` (capping the grid changes
///   it), no return, barrier, warp collective or atomic, and pointer
///   parameters used only through the elements the model sees.
///
/// When a precondition fails the reason says which, in the model's terms.
///
//===----------------------------------------------------------------------===//
#ifndef FORGE_PASSES_OPTIMIZE_ELEMENTWISEKERNEL_H
#define FORGE_PASSES_OPTIMIZE_ELEMENTWISEKERNEL_H

#include "ExpertRule.h"
#include "forge/Agent/EditBlocks.h"
#include "forge/Analysis/KernelModel.h"
#include "llvm/Support/Error.h"
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace clang {
class DeclRefExpr;
class DeclStmt;
class Expr;
class Stmt;
class VarDecl;
} // namespace clang

namespace forge::passes {

/// How the elements are guarded.
enum class ElementGuard {
  If,             ///< `if (i < n [&& c]) body` as the kernel's last statement
  EarlyReturn,    ///< `if (i >= n [|| c]) return;` and the statements after it
  GridStrideLoop, ///< `for (T i = <index>; i < n; i += blockDim.x * gridDim.x) body`,
                  ///< possibly opening with `if (c) continue;`
};

struct ElementwiseKernel {
  analysis::KernelModel Model;
  ElementGuard Form = ElementGuard::If;
  /// The element index, and its top-level declaration (null for the loop,
  /// whose init declares it).
  const clang::VarDecl *Index = nullptr;
  const clang::DeclStmt *IndexDecl = nullptr;
  /// The index is read before the guard: its declaration stays (the loop's
  /// own variable shadows it).
  bool KeepIndexDecl = false;
  /// The if statement or the loop.
  const clang::Stmt *Guard = nullptr;
  /// The comparison of the index with the bound, as written, and its
  /// bound side; Inclusive for `<=`.
  const clang::Expr *Compare = nullptr;
  const clang::Expr *Bound = nullptr;
  /// The bound as the rewrite writes it: Bound's text, or the comparison's
  /// operand as written when Bound is a macro's body ("N").
  std::string BoundText;
  bool Inclusive = false;
  /// The comparison as it holds ("i < n", "n > i"), for a loop condition.
  std::string LoopCond;
  /// The other operands of the guard's chain: for If, conditions that must
  /// hold as well (`c` in `i < n && c`); for EarlyReturn, conditions that
  /// exit (`c` in `i >= n || c`).
  std::vector<const clang::Expr *> Rest;
  /// Rest holds conditions that end the element (`||`-joined): the early
  /// exit's, or those of `if (c) continue;` statements that open a
  /// grid-stride loop's body (a grid-stride rewrite writes them).
  bool RestExits = false;
  /// The statements run per element: the if's branch, the statements after
  /// the early exit, or the loop's body.
  std::vector<const clang::Stmt *> Body;
  /// Main-file byte ranges of the body statements (first begin to last
  /// end), and of the code the rewrite replaces: the if statement, the
  /// early exit through the last statement, or the loop.
  std::pair<unsigned, unsigned> BodyRange, Replaced;
  /// The pattern's accesses.
  std::vector<const analysis::Access *> Accesses;
  /// Loads at an index of their own from a buffer the map does not write
  /// (`scale[i / group]`): they stay scalar, each element making its own.
  std::vector<const analysis::Access *> SideReads;
  /// Every access is at the index itself (not at an offset from it).
  bool AtIndex = true;
  /// Reads of the index as a value (outside the accesses), in the body and
  /// in Rest.
  std::vector<const clang::DeclRefExpr *> IndexUses;
  /// A 64-bit type, spelled for source, for the loop's index: the index's
  /// own type when it is 64-bit, otherwise one as wide as the bound.
  std::string IndexType;
  /// The index's own type when it is narrower than IndexType ("int"), else
  /// "". Then the uses of IndexUses whose result would change with a wider
  /// index (arithmetic: `i * i` overflows an int, `i - 1u` wraps at 2^32)
  /// are computed in it: Narrow[k] says so for IndexUses[k], and
  /// NarrowRanges holds their main-file byte ranges.
  std::string OwnType;
  std::vector<bool> Narrow;
  std::vector<std::pair<unsigned, unsigned>> NarrowRanges;
  /// The body's text (narrow uses cast to OwnType), the guard's
  /// indentation, and the indentation the body's text is written at.
  std::string BodyText, Indent, BodyIndent;

  /// The index's name.
  std::string indexName() const;
  /// Main-file text [Begin, End) as the scalar loop runs it: the narrow
  /// uses of the index cast to OwnType (`(int)i`).
  std::string scalarText(llvm::StringRef Source, unsigned Begin, unsigned End) const;
  /// An index value Value (a loop variable or `(forge_v * 4 + 1)`) as use
  /// k of IndexUses reads it.
  std::string useText(unsigned K, llvm::StringRef Value) const;
};

/// Locates the elementwise map of In's kernel. AllowGridStride admits a
/// kernel that already loops over a grid stride (vectorize rewrites it;
/// grid-stride has nothing to add). The error is the reason in words.
llvm::Expected<ElementwiseKernel> matchElementwiseKernel(const RuleInput &In,
                                                         bool AllowGridStride);

/// The blocks of blockDim.x threads that fill FORGE_GRID_WAVES waves of the
/// GPU at full occupancy, as a spec expression ("132 * FORGE_GRID_WAVES *
/// 8"), with the SM count and blocks per SM it uses; none when the block
/// size is not known. SharedBytes, the static shared memory a block of the
/// rewrite takes, limits the blocks per SM too (the occupancy calculator).
struct LaunchSize;
struct WavesCap {
  std::string Expr;
  unsigned SMs = 0;
  int64_t BlocksPerSM = 0, BlockThreads = 0;
};
std::optional<WavesCap> gridWavesCap(const RuleInput &In, int64_t SharedBytes = 0);

/// Whether a launch of Size runs fewer than half the threads the GPU holds
/// at once (Cap's SMs x blocks per SM, and the SM's thread limit): most SMs
/// idle, so a grid-stride loop wants more blocks, not a cap.
bool underfillsGpu(const RuleInput &In, const WavesCap &Cap, const LaunchSize &Size);

/// The candidate numbers of waves for FORGE_GRID_WAVES (the first is the
/// default).
std::vector<int64_t> gridWavesCandidates();

/// grid.x capped at FORGE_GRID_WAVES waves: `min(<grid.x>, <cap>)`, with the
/// tunable added when the spec lacks it. A 1D grid that underfills the GPU
/// (a fixed `<<<2 * SMs, 256>>>` under a grid-stride loop) is raised to the
/// waves instead. Why says why any grid is correct ("the loop ... visits
/// every element for any grid"); the cap or the raise is said after it.
/// None when the spec's grid.x or the block size is not known.
std::optional<agent::SpecChange>
wavesCappedGrid(const RuleInput &In, llvm::StringRef Why,
                int64_t SharedBytes = 0);

/// An edit that erases the index's declaration (with its line when nothing
/// else is on it, and the blanks before it when it ends its line).
agent::SourceEdit eraseIndexDecl(const RuleInput &In, const ElementwiseKernel &K);

/// The lines of Text, each after the first without the leading Indent of
/// the line it began on (the first line starts mid-line), trailing blanks
/// removed.
std::vector<std::string> dedentLines(llvm::StringRef Text, llvm::StringRef Indent);

/// Lines as one statement run by a loop head: `Head {` ... `}` when the
/// statement is a block, else `Head` with the statement indented below it.
std::vector<std::string> underHead(llvm::StringRef Head, const std::vector<std::string> &Stmt);

} // namespace forge::passes

#endif
