//===- Analysis/Patterns.h - Recognised computations ------------*- C++ -*-===//
///
/// \file
/// What the recognisers found in a kernel, stated over the model (loops,
/// accesses, reductions) rather than over spellings:
///
/// - Reduction: an atomic into an address that is the same for every thread
///   of a block (`atomicAdd(out, v)`, `atomicMax(&res[blockIdx.x], v)`), or
///   a loop-carried accumulation `acc op= f(...)` with an associative op
///   (+, *, min, max, &, |, ^), argmax/argmin included.
/// - Pattern: a tagged computation with its lines, the roles of its
///   variables and buffers (Roles: {"C", "out"}, {"k", "k"}), and the
///   accesses, loops, reduction and footprint it is made of.
///
/// A rewrite rule looks for the pattern kind it rewrites and checks its
/// preconditions on the fields; Details say in words what was seen.
///
//===----------------------------------------------------------------------===//
#ifndef FORGE_ANALYSIS_PATTERNS_H
#define FORGE_ANALYSIS_PATTERNS_H

#include "forge/Analysis/IndexForm.h"
#include "forge/Analysis/SourceSpan.h"
#include "forge/Analysis/Uniformity.h"
#include "llvm/ADT/StringRef.h"
#include <array>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace clang {
class VarDecl;
} // namespace clang

namespace forge::analysis {

enum class ReductionOp { Add, Mul, Min, Max, And, Or, Xor, ArgMin, ArgMax };
enum class ReductionKind {
  Atomic,      ///< atomics of many threads into one address
  LoopCarried, ///< one thread accumulates over a loop
};
/// Which threads share the result.
enum class ReductionScope {
  Grid,  ///< one address for the whole launch (atomicAdd(out, v))
  Block, ///< one address per block (out[blockIdx.x])
  Thread ///< a per-thread accumulator (loop-carried)
};

llvm::StringRef reductionOpName(ReductionOp Op);   ///< "add", "max", "argmax"
llvm::StringRef reductionOpSymbol(ReductionOp Op); ///< "+", "max", "argmax"
llvm::StringRef reductionKindName(ReductionKind K);
llvm::StringRef reductionScopeName(ReductionScope S);

struct Reduction {
  unsigned Id = 0;
  ReductionKind Kind = ReductionKind::LoopCarried;
  ReductionOp Op = ReductionOp::Add;
  ReductionScope Scope = ReductionScope::Thread;
  /// The accumulator ("sum") or the atomic's target ("out[0]").
  std::string Target;
  const clang::VarDecl *Acc = nullptr; ///< loop-carried; null after the AST is gone
  /// ArgMax/ArgMin: the variables updated with the value (the index).
  std::vector<std::string> Companions;
  /// LoopCarried: the loops it accumulates over, outermost first.
  std::vector<unsigned> Loops;
  /// Atomic: the access.
  int Access = -1;
  /// The value before the loop ("0.0f", "-INFINITY"); LoopCarried only.
  std::string Init;
  /// The value combined in ("a[row * n + k] * x[k]").
  std::string Operand;
  /// The operand's uniformity (a uniform operand makes the reduction a
  /// multiplication).
  UniformityInfo OperandUniform;
  /// The loop (loop-carried) or the atomic (atomic).
  SourceSpan Loc;
  std::vector<unsigned> UpdateLines;
  /// The accumulator is floating-point: reassociation changes rounding.
  bool FloatingPoint = false;
};

enum class PatternKind {
  Reduction,     ///< a Reduction (every one is also a pattern)
  Elementwise,   ///< one element per thread (or grid-stride), same index everywhere
  RowLoop,       ///< a thread loops over a contiguous row or a column
  MultiPassRow,  ///< several loops of one thread over the same row (softmax-like)
  MatrixVector,  ///< y[r] = sum_k A[r][k] * x[k]
  MatrixProduct, ///< C[i][j] = sum_k A[i][k] * B[k][j], any names and loop order
  Chunk,         ///< thread t handles t*K + k for k in [0, K)
  Transpose,     ///< out[x][y] = in[y][x]
  Stencil,       ///< neighbouring loads of one buffer, one output per thread
  Histogram,     ///< atomic increments at data-dependent addresses
  TreeReduction, ///< a block reduction in shared memory over halving strides
  Scan,          ///< a prefix sum in shared memory over doubling offsets
};

llvm::StringRef patternKindName(PatternKind K);

struct Access;

/// Whether A, a global access of an elementwise map whose element is at
/// index F, is a side read: a load at an index of its own (`scale[i /
/// group]`, `table[k]`), not a constant offset from F (neighbours are a
/// stencil's), of a buffer that no access in Global writes and that no
/// access in Global reads at F. Each element makes such reads for itself,
/// so a rule that changes which thread handles which element keeps them.
bool isSideRead(const Access &A, const IndexForm &F, const std::vector<const Access *> &Global);

/// A thread-varying value used as a value (not as an index) in what a
/// pattern stores: `y[i] = x[i] + threadIdx.x` uses 'threadIdx.x'.
struct ValueUse {
  std::string Text;
  SourceSpan Loc;
  std::string Why;
};

/// One operand of a staged matrix product: a __shared__ tile the block
/// fills, one element per thread, with `S[threadIdx.a][threadIdx.b] =
/// G[f(phase, ...)]` (or `c ? G[...] : 0`) before a barrier, and reads after
/// it in the loop over k.
struct StagedOperand {
  std::string Tile;                      ///< "Mds"
  unsigned Read = 0, Fill = 0, Source = 0; ///< the tile's load, its store, the global load
  /// The thread dimension the fill writes the tile's k coordinate with
  /// ('x' for `Mds[ty][tx]` read as `Mds[ty][k]`); the read puts k there and
  /// every other coordinate back as the fill wrote it.
  char KDim = 'x';
  /// The global index the element read holds, over the phase and k loops'
  /// variables (`(by * 16 + ty) * Width + ph * 16 + k`).
  IndexForm Global;
  /// The fill's condition (`c ? G[...] : 0`) as written; "" when none.
  std::string Cond;
};

/// MatrixProduct: the operands are shared-memory tiles that stand for
/// global elements (PMPP's tiled product): the product is over kk = phase *
/// Tile + k, kk < KRange, of the global operands.
struct Staging {
  unsigned PhaseLoop = 0;
  int64_t Tile = 0; ///< k elements per phase (the k loop's trip count)
  /// The range of kk: phases * Tile, or the fills' bound on kk when they
  /// zero the elements past it and the phases cover it.
  IndexForm KRange;
  std::string KRangeText;
  /// KRange is the phases times the tile (the fills check no bound on kk).
  bool Truncated = true;
  /// The block the fills assume: one thread per element of each tile.
  std::array<int64_t, 3> Block{{1, 1, 1}};
  StagedOperand A, B;
};

struct Pattern {
  unsigned Id = 0;
  PatternKind Kind = PatternKind::Elementwise;
  SourceSpan Loc;
  /// One line, without the location ("matrix-vector: one thread per row").
  std::string Summary;
  /// What was seen, one fact a line.
  std::vector<std::string> Details;
  /// Role -> name: {"A", "a"}, {"row", "i"}, {"k", "k"}.
  std::vector<std::pair<std::string, std::string>> Roles;
  std::vector<unsigned> Accesses;
  /// An elementwise map's side reads (isSideRead), not in Accesses.
  std::vector<unsigned> SideReads;
  std::vector<unsigned> Loops;
  int Reduction = -1;
  int Footprint = -1;

  // Kind-specific facts.
  /// Elementwise, Chunk: a grid-stride loop covers the elements.
  bool GridStride = false;
  /// Elementwise: thread-varying values used as values; empty means every
  /// stored value is a function of the loaded elements and uniform values.
  std::vector<ValueUse> ThreadValues;
  /// MatrixProduct: operands read transposed (A[k][i], B[j][k]).
  bool TransposedA = false, TransposedB = false;
  /// MatrixProduct: an operand is read from shared memory (the kernel is
  /// already tiled; the product is over its tiles).
  bool Tiled = false;
  /// MatrixProduct: the shared-memory tiles stand for global operands
  /// (Tiled is false then); why not, when Tiled.
  std::optional<Staging> Staged;
  std::string NotStagedWhy;
  /// MatrixProduct: the loop order over (i, j, k) from outer to inner, with
  /// thread dimensions first ("ijk", "ikj").
  std::string LoopOrder;
  /// MultiPassRow: the number of passes.
  unsigned Passes = 0;
  /// Chunk: elements per thread ("8", "ITEMS").
  std::string ChunkSize;
  /// Chunk: the same as a form (a constant or template parameters), and,
  /// for a loop over the thread's own chunk bounded by `min(n, s + K)`,
  /// the limit n (each element is below it).
  IndexForm ChunkElems;
  std::optional<IndexForm> ChunkLimit;

  /// The name playing Role, or "".
  llvm::StringRef role(llvm::StringRef Role) const;
};

} // namespace forge::analysis

#endif
