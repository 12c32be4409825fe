//===- Analysis/Access.h - Memory accesses and how a warp makes them -*- C++ -*-===//
///
/// \file
/// One Access per memory reference of a kernel: an array subscript or a
/// dereference through a kernel pointer parameter (or a local pointer
/// derived from one as `p + off`, `&p[off]`, `p += off`), a __shared__
/// array, or a pointer the kernel loaded from memory; and the calls that
/// access memory (atomicAdd and its kin, __ldg and the cache-hinted loads
/// and stores). Each has its index as an IndexForm in elements of the
/// accessed type, its guard, its loops, and its warp access class: how the
/// 32 lanes of a warp (consecutive threadIdx.x) address memory.
///
/// Footprints group the loads of one buffer that differ by constant or
/// small-loop offsets (stencils): the offsets per dimension, the radius,
/// and how many threads read each element.
///
//===----------------------------------------------------------------------===//
#ifndef FORGE_ANALYSIS_ACCESS_H
#define FORGE_ANALYSIS_ACCESS_H

#include "forge/Analysis/Guards.h"
#include "forge/Analysis/IndexForm.h"
#include "forge/Analysis/SourceSpan.h"
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace clang {
class Expr;
class ValueDecl;
} // namespace clang

namespace forge::analysis {

enum class AccessKind {
  Load,
  Store,
  ReadModifyWrite, ///< `p[i] += v`, `p[i]++`: a load and a store, not atomic
  Atomic,          ///< atomicAdd(&p[i], v) and its kin
};

enum class AtomicOp { None, Add, Sub, Max, Min, And, Or, Xor, Exch, CAS, Inc, Dec };

enum class MemorySpace {
  Global, ///< through a kernel pointer parameter (or a pointer derived from one)
  Shared, ///< a __shared__ array
  Unknown ///< through a pointer the analysis cannot trace to either
};

/// The warp access class.
enum class AccessClass {
  Coalesced,     ///< neighbouring lanes touch neighbouring elements (stride 1)
  Strided,       ///< neighbouring lanes are Stride elements apart (constant or symbolic)
  Broadcast,     ///< every lane of a warp touches the same element (independent of threadIdx.x)
  Transposed,    ///< strided or coalesced, and paired with an access whose fast index is swapped
  DataDependent, ///< the address depends on loaded data (gather, scatter)
  Unknown,       ///< the analysis cannot tell; Reason says why
};

llvm::StringRef accessKindName(AccessKind K);
llvm::StringRef atomicOpName(AtomicOp Op);
llvm::StringRef memorySpaceName(MemorySpace S);
llvm::StringRef accessClassName(AccessClass C);

/// How the lanes of a warp (threadIdx.x, threadIdx.x + 1, ...) address
/// memory.
struct WarpBehaviour {
  AccessClass Class = AccessClass::Unknown;
  /// Elements between neighbouring lanes, when known (1 for coalesced, 0
  /// for broadcast, n for `A[tid * n + k]`).
  std::optional<IndexForm> Stride;
  std::string StrideText;
  /// Lanes that share one element (x[tid / 4]: 4).
  int64_t LanesPerElement = 1;
  /// What the class assumes ("'w' >= 32", "inside the clamp range").
  std::string Assumption;
  /// Why the class is DataDependent or Unknown; for Transposed, the pair.
  std::string Reason;
  /// For Transposed: the variable that takes threadIdx.x's role in the
  /// other access, and the paired access.
  std::string SwappedWith;
  int PairedAccess = -1;
  /// For Transposed through a flat index t split into a row and a column
  /// (`t / d`, `t % d`): the atom `t / d` (SwappedWith is its rendering).
  std::optional<AtomId> FlatSplit;

  /// The constant stride, when there is one.
  std::optional<int64_t> constantStride() const {
    return Stride ? Stride->constantValue() : std::nullopt;
  }
};

struct Access {
  unsigned Id = 0;
  AccessKind Kind = AccessKind::Load;
  AtomicOp Atomic = AtomicOp::None;
  MemorySpace Space = MemorySpace::Global;
  /// The call that makes the access when there is one ("atomicAdd", "__ldg");
  /// for a call of an atomic wrapper, the builtin the wrapper calls.
  std::string Callee;
  /// An atomic made through a __device__ function whose whole body is the
  /// builtin on its parameters (`void add(float *p, float v) { atomicAdd(p,
  /// v); }`): the function's name. E is then the call of the wrapper, its
  /// AddressArg-th argument the address and its ValueArg-th the value
  /// (ValueArg -1: the constant ValueText inside the wrapper).
  ///
  /// A store made through a __device__ helper whose whole body is that store
  /// (`void put(float *p, int i, float v) { p[i] = v; }`) is a Store with
  /// Wrapper and Callee the helper's name: E is the call, its AddressArg-th
  /// argument the pointer, IndexArg-th the subscript (-1: `*p = v`) and
  /// ValueArg-th the value.
  std::string Wrapper;
  unsigned AddressArg = 0;
  int ValueArg = 1;
  int IndexArg = -1;
  std::string ValueText;

  /// The buffer: the parameter or __shared__ array name ("in"), or the
  /// pointer expression for an unknown space.
  std::string Buffer;
  /// The parameter or array; null for an unknown space or after the AST is gone.
  const clang::ValueDecl *Base = nullptr;
  /// The position of Base among the kernel parameters, -1 otherwise.
  int ParamIndex = -1;

  /// The access as written ("in[y * w + x]", "atomicAdd(&out[0], v)").
  std::string Text;
  /// The subscript, dereference or call; null after the AST is gone.
  const clang::Expr *E = nullptr;
  SourceSpan Loc;

  std::string ElementType;   ///< "float", "T" in a template pattern
  uint64_t ElementBytes = 0; ///< 0 when not known (a dependent type)

  /// The index in elements of ElementType from the start of Buffer.
  IndexForm Index;
  std::string IndexText;
  /// The index has no unknown part that varies between threads.
  bool IndexKnown = true;
  /// Why it is not known ("'idx[i]' is loaded from memory: data-dependent").
  std::string IndexWhy;
  /// The index is affine in threads and loop variables.
  bool Affine = true;

  /// The enclosing loops, outermost first (indices into KernelModel::Loops).
  std::vector<unsigned> Loops;
  Guard G;
  WarpBehaviour Warp;
  /// The stencil footprint this load belongs to, -1 when none.
  int Footprint = -1;
  /// Notes on how the address was traced ("through a float4 reinterpretation").
  std::vector<std::string> Notes;

  /// For a call (an atomic, __ldg): the argument that is the address, and
  /// the one that is the value (null: none, or a constant in the wrapper).
  const clang::Expr *addressArg() const;
  const clang::Expr *valueArg() const;

  bool reads() const { return Kind != AccessKind::Store; }
  bool writes() const { return Kind != AccessKind::Load; }
};

/// How a stencil treats points outside the array.
enum class BorderMode {
  None,     ///< no border handling seen: the launch must keep threads away from the border
  Clamped,  ///< indices clamped into range (min/max, `?:`): the border element repeats
  Guarded,  ///< each neighbour read is guarded (zero-padded or skipped)
  Interior, ///< threads near the border do nothing (the guard excludes them)
};

llvm::StringRef borderModeName(BorderMode B);

/// One dimension of a footprint: offsets Lo..Hi (inclusive) along a
/// stride (dimension 0 has unit stride).
struct FootprintDim {
  std::string Stride; ///< "1", "w", "w * h"
  int64_t Lo = 0, Hi = 0;
  /// Elements between neighbouring threads along this dimension (1 for a
  /// stencil over the thread grid; 8 for a per-thread chunk of 8).
  int64_t ThreadStep = 1;
  /// A symbolic footprint's bounds and extent ("-R", "R", "2 * R + 1").
  std::string LoText, HiText, ExtentText;
  /// The same as forms: the stride, and Lo and Hi (constants, or forms over
  /// template parameters for a symbolic footprint).
  IndexForm StrideForm, LoForm, HiForm;
  /// The coordinate along this dimension of the position the offsets are
  /// relative to (the output's when there is one): `y` (blockIdx.y * 16 +
  /// threadIdx.y) for in[(y + dy) * w + x + dx]. The position is the sum of
  /// Position * StrideForm over the dimensions; a term that is a multiple of
  /// several strides goes to the largest (a batch offset `b * w * h` of a 2D
  /// footprint is part of the row coordinate).
  IndexForm Position;
  int64_t extent() const { return Hi - Lo + 1; }
};

/// The loads of one buffer at offsets from one position (a stencil).
struct Footprint {
  unsigned Id = 0;
  std::string Buffer;
  MemorySpace Space = MemorySpace::Global;
  std::vector<unsigned> Accesses;
  /// Dimensions, the unit stride first.
  std::vector<FootprintDim> Dims;
  /// Distinct offsets read by one thread.
  int64_t Points = 0;
  /// How many threads read each interior element; 0 when not known.
  int64_t Reuse = 0;
  /// The largest |offset| in any dimension, relative to the output
  /// position when there is one.
  int64_t Radius = 0;
  BorderMode Border = BorderMode::None;
  /// Offsets generated by loops (`for (dy = -R; dy <= R; ++dy)`).
  bool FromLoops = false;
  /// The store at the centre, -1 when none was found.
  int Output = -1;
  /// Parallel to Accesses: each load's offset along each dimension from
  /// the position (Dims[D].Position), as a form over the offset loops'
  /// variables and constants. The load's index with its clamps removed is
  /// the sum over D of (Position + offset) * StrideForm.
  std::vector<std::vector<IndexForm>> Offsets;
  /// The offsets come from loops over a radius not known in the pattern:
  /// a template parameter (`for (k = -R; k <= R; ++k)`) or, Runtime, a
  /// scalar kernel parameter (`for (i = 0; i < mask_width; ++i)`): Lo, Hi,
  /// Points, Reuse and Radius are 0, and the Text fields hold them as forms.
  bool Symbolic = false;
  bool Runtime = false;
  std::string RadiusText, PointsText;

  /// "3x3", "5", "3x3x3".
  std::string shape() const;
};

} // namespace forge::analysis

#endif
