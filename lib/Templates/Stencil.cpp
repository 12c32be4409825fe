//===- Templates/Stencil.cpp - Stencils and convolutions with a fixed filter ---===//
///
/// \file
/// The generated text is ordinary CUDA with comments. Its file-scope names
/// are the kernel (the request's Name), its wrapper forge_<Name> and the
/// namespace <Name>_stencil holding the instance's constants and its tile
/// loader, so that several instances share a translation unit.
///
//===----------------------------------------------------------------------===//
#include "forge/Templates/Stencil.h"
#include "TemplateUtil.h"
#include "forge/Support/Error.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

using namespace llvm;

namespace forge::templates {

namespace {

/// The largest extent accepted: x0 + TX and the wrapper's rounded-up grids
/// stay within int.
constexpr int64_t MaxExtent = (int64_t(1) << 31) - (int64_t(1) << 20);
/// Static shared memory of one block.
constexpr int64_t SharedLimit = 48 * 1024;
/// The alignment padding the compiler may add between the shared arrays.
constexpr int64_t SharedSlack = 16;

/// What the request fixes.
struct Shape {
  int Rank = 1;
  int FD = 1, FH = 1, FW = 1; ///< the filter's extents (1 where absent)
  bool Separable = false;
  bool Zero = false;     ///< the border reads 0 (else the nearest element)
  Scalar Type = Scalar::F32;
  int Bytes = 4;         ///< of an element
  int Vec = 4;           ///< elements in 16 bytes
  int HL = 4;            ///< left halo columns, rounded up to a vector
  int taps() const { return Separable ? FH + FW : FD * FH * FW; }
};

/// The tunables: 1D uses TX as BLOCK and OY as ITEMS.
struct Tunables {
  int TX, BY, OY, ZC;
};

int roundUp(int V, int M) { return (V + M - 1) / M * M; }

/// Shared memory of one block, as the kernel declares it.
int64_t sharedBytes(const Shape &S, const Tunables &T) {
  int64_t Elems;
  if (S.Rank == 1) {
    Elems = (int64_t)T.TX * T.OY + 2 * S.HL;
  } else {
    int64_t Rows = (int64_t)T.BY * T.OY + S.FH - 1, Pitch = T.TX + 2 * S.HL;
    Elems = Rows * Pitch;
    if (S.Rank == 3)
      Elems *= S.FD + 1;
    if (S.Separable)
      Elems += Rows * T.TX;
  }
  return (Elems + S.taps()) * S.Bytes + SharedSlack;
}

/// The same as a spec expression over the tunables.
std::string sharedExpr(const Shape &S) {
  std::string Tail = formatv("{0}", S.taps() * S.Bytes + SharedSlack).str();
  if (S.Rank == 1)
    return formatv("(BLOCK * ITEMS + {0}) * {1} + {2}", 2 * S.HL, S.Bytes, Tail).str();
  std::string Rows = formatv("(BY * OY + {0})", S.FH - 1).str();
  std::string Tile = formatv("(TX + {0}) * {1}", 2 * S.HL, Rows).str();
  if (S.Rank == 3)
    Tile = formatv("{0} * {1}", S.FD + 1, Tile).str();
  if (S.Separable)
    Tile += " + TX * " + Rows;
  return formatv("({0}) * {1} + {2}", Tile, S.Bytes, Tail).str();
}

Error checkRequest(const Request &R, Shape &S) {
  using namespace detail;
  const size_t Rank = R.Shape.size();
  if (Rank < 1 || Rank > 3)
    return makeError("the stencil template takes 1, 2 or 3 extents ({{n}, {{height, width} or "
                     "{{depth, height, width}), not {0}",
                     Rank);
  if (Error E = checkShape(R, Rank, "a stencil"))
    return E;
  for (int64_t E : R.Shape)
    if (E > MaxExtent)
      return makeError("the stencil template takes extents up to {0}, not {1}", MaxExtent, E);
  if (R.Type != Scalar::F32 && R.Type != Scalar::F64)
    return makeError("the stencil template takes f32 or f64 elements, not {0}",
                     scalarInfo(R.Type).Dtype);
  if (R.Filter.size() != Rank)
    return makeError("the stencil template needs a filter extent per axis: {0} for a {1}D "
                     "shape, not {2}",
                     Rank, Rank, R.Filter.size());
  for (int F : R.Filter)
    if (F < 1 || F > 31 || F % 2 == 0)
      return makeError("the stencil template takes odd filter extents from 1 to 31, not {0}", F);
  if (R.Border != "clamp" && R.Border != "zero")
    return makeError("the stencil template's border is 'clamp' or 'zero', not '{0}'", R.Border);
  if (R.Separable && Rank != 2)
    return makeError("the stencil template's separable filter is 2D (a row and a column "
                     "pass), not {0}D",
                     Rank);
  S.Rank = (int)Rank;
  S.FW = R.Filter[Rank - 1];
  S.FH = Rank >= 2 ? R.Filter[Rank - 2] : 1;
  S.FD = Rank == 3 ? R.Filter[0] : 1;
  S.Separable = R.Separable;
  S.Zero = R.Border == "zero";
  S.Type = R.Type;
  S.Bytes = (int)scalarInfo(R.Type).Bytes;
  S.Vec = 16 / S.Bytes;
  S.HL = roundUp(S.FW / 2, S.Vec);
  return Error::success();
}

/// The first of the preferred defaults whose shared memory fits.
std::optional<Tunables> pickDefaults(const Shape &S) {
  static const Tunables OneD[] = {{256, 1, 8, 1}, {256, 1, 4, 1}, {128, 1, 4, 1}};
  static const Tunables TwoD[] = {{32, 8, 8, 1}, {32, 8, 4, 1}, {32, 4, 4, 1},
                                  {32, 4, 2, 1}, {32, 2, 2, 1}, {32, 1, 1, 1}};
  static const Tunables ThreeD[] = {{32, 8, 4, 16}, {32, 8, 2, 16}, {32, 4, 2, 16},
                                    {32, 2, 2, 16}, {32, 2, 1, 16}};
  ArrayRef<Tunables> Order = S.Rank == 1 ? ArrayRef<Tunables>(OneD)
                             : S.Rank == 2 ? ArrayRef<Tunables>(TwoD)
                                           : ArrayRef<Tunables>(ThreeD);
  for (const Tunables &T : Order)
    if (sharedBytes(S, T) <= SharedLimit)
      return T;
  return std::nullopt;
}

//===----------------------------------------------------------------------===//
// The generated text
//===----------------------------------------------------------------------===//

/// The instance's namespace: its constants, the 16-byte load and store, and
/// the tile loader every variant uses.
std::string commonText(const Shape &S, StringRef Name) {
  const bool F64 = S.Type == Scalar::F64;
  std::string VecLoad = F64 ? "  const double2 q = __ldg(reinterpret_cast<const double2 *>(p));\n"
                              "  v[0] = q.x;\n  v[1] = q.y;\n"
                            : "  const float4 q = __ldg(reinterpret_cast<const float4 *>(p));\n"
                              "  v[0] = q.x;\n  v[1] = q.y;\n  v[2] = q.z;\n  v[3] = q.w;\n";
  std::string VecStore = F64 ? "  *reinterpret_cast<double2 *>(p) = make_double2(v[0], v[1]);\n"
                             : "  *reinterpret_cast<float4 *>(p) = make_float4(v[0], v[1], v[2], "
                               "v[3]);\n";
  // Only the constants the variant reads (nvcc warns of unused ones).
  std::string Filter;
  if (S.Rank == 1)
    Filter = formatv("constexpr int FW = {0};  // the filter's extent\n"
                     "constexpr int RX = FW / 2;  // its radius\n",
                     S.FW);
  else if (S.Rank == 2)
    Filter = formatv("constexpr int FH = {0}, FW = {1};  // the filter's extents (y, x)\n"
                     "constexpr int RY = FH / 2, RX = FW / 2;  // its radii\n",
                     S.FH, S.FW);
  else
    Filter = formatv("constexpr int FD = {0}, FH = {1}, FW = {2};  // the filter's extents "
                     "(z, y, x)\n"
                     "constexpr int RZ = FD / 2, RY = FH / 2, RX = FW / 2;  // its radii\n",
                     S.FD, S.FH, S.FW);
  if (!S.Separable)
    Filter += "constexpr int TAPS = @TAPS;  // weights, row-major over the filter's extents\n";
  std::string T = R"(// The instance's constants and its tile loader. Its file-scope names are
// the kernel, its wrapper (forge_ and the kernel's name) and this namespace.
namespace @NAME_stencil {

typedef @T T;
@FILTERconstexpr int VEC = @VEC;  // elements in one 16-byte vector
// Columns left of the tile in shared memory: the halo RX, rounded up to a
// vector so that the tile's own columns start 16-byte aligned.
constexpr int HL = @HL;
constexpr bool ZERO = @ZERO;  // the border: @BORDER

// One 16-byte load of VEC elements through the read-only cache (p aligned).
__device__ __forceinline__ void loadVec(const T *p, T (&v)[VEC]) {
@VECLOAD}

// One 16-byte store to shared memory (p aligned).
__device__ __forceinline__ void storeVec(T *p, const T (&v)[VEC]) {
@VECSTORE}

// The block's input tile: columns x0 - RX .. x0 + TX + RX - 1 of rows
// ytop .. ytop + ROWS - 1 of one plane, read into registers by load() and
// written to shared memory by store() (the 3D march issues the next plane's
// loads before its arithmetic and stores them after). In shared memory, row r
// starts at r * PITCH and column x0 + c lies at HL + c. NT threads share the
// work: the tile's own columns as vectors (CH a row), consecutive threads on
// consecutive vectors, so a warp reads whole rows; then the 2 * RX halo
// columns of every row as elements.
template <int TX, int NT, int ROWS> struct Tile {
  static constexpr int PITCH = TX + 2 * HL;
  static constexpr int CH = TX / VEC;
  static constexpr int NV = (CH * ROWS + NT - 1) / NT;  // vectors a thread loads
  static constexpr int HW = 2 * RX;
  static constexpr int NH = (HW * ROWS + NT - 1) / NT;  // halo elements a thread loads
  static_assert(TX % VEC == 0, "the tile's width is a whole number of vectors");
  T v[NV][VEC];
  T h[NH > 0 ? NH : 1];

  // plane: the plane's first element; inPlane: false for a plane outside the
  // input (it reads as zeros with the zero border). fast: the rows are
  // 16-byte aligned and x0 + TX <= width (one vector load each).
  __device__ __forceinline__ void load(const T *__restrict__ plane, bool inPlane, int height,
                                       int width, int x0, int ytop, bool fast, int tid) {
#pragma unroll
    for (int i = 0; i < NV; ++i) {
      const int q = tid + i * NT;
      if ((CH * ROWS) % NT == 0 || q < CH * ROWS) {
        const int r = q / CH, c = (q % CH) * VEC, y = ytop + r;
        if (ZERO && (!inPlane || y < 0 || y >= height)) {
#pragma unroll
          for (int e = 0; e < VEC; ++e)
            v[i][e] = T(0);
        } else {
          const T *row = plane + (long long)min(max(y, 0), height - 1) * width;
          if (fast) {
            loadVec(row + x0 + c, v[i]);
          } else {
#pragma unroll
            for (int e = 0; e < VEC; ++e) {
              const int x = x0 + c + e;
              v[i][e] = ZERO && x >= width ? T(0) : row[min(x, width - 1)];
            }
          }
        }
      }
    }
    if constexpr (HW > 0) {
#pragma unroll
      for (int i = 0; i < NH; ++i) {
        const int q = tid + i * NT;
        if ((HW * ROWS) % NT == 0 || q < HW * ROWS) {
          const int r = q / HW, c = q % HW, y = ytop + r;
          const int x = c < RX ? x0 - RX + c : x0 + TX + (c - RX);
          if (ZERO && (!inPlane || y < 0 || y >= height || x < 0 || x >= width))
            h[i] = T(0);
          else
            h[i] = plane[(long long)min(max(y, 0), height - 1) * width + min(max(x, 0), width - 1)];
        }
      }
    }
  }

  __device__ __forceinline__ void store(T *s, int tid) const {
#pragma unroll
    for (int i = 0; i < NV; ++i) {
      const int q = tid + i * NT;
      if ((CH * ROWS) % NT == 0 || q < CH * ROWS)
        storeVec(s + (q / CH) * PITCH + HL + (q % CH) * VEC, v[i]);
    }
    if constexpr (HW > 0) {
#pragma unroll
      for (int i = 0; i < NH; ++i) {
        const int q = tid + i * NT;
        if ((HW * ROWS) % NT == 0 || q < HW * ROWS) {
          const int c = q % HW;
          s[(q / HW) * PITCH + HL - RX + (c < RX ? c : TX + c)] = h[i];
        }
      }
    }
  }
};

// Whether a pointer is 16-byte aligned.
__device__ __forceinline__ bool aligned16(const void *p) {
  return (reinterpret_cast<unsigned long long>(p) & 15ull) == 0;
}

} // namespace @NAME_stencil
)";
  const std::pair<StringRef, std::string> Fills[] = {
      // Longer keys first: @TAPS before @T, @VECLOAD before @VEC.
      {"@VECLOAD", VecLoad},
      {"@VECSTORE", VecStore},
      {"@VEC", std::to_string(S.Vec)},
      {"@FILTER", Filter},
      {"@TAPS", std::to_string(S.taps())},
      {"@NAME", Name.str()},
      {"@T", scalarInfo(S.Type).Cuda.str()},

      {"@HL", std::to_string(S.HL)},
      {"@ZERO", S.Zero ? "true" : "false"},
      {"@BORDER", S.Zero ? "a point outside the input reads 0"
                         : "a point outside the input reads the nearest edge element"}};
  for (const auto &[Key, Value] : Fills)
    T = detail::replaceAll(std::move(T), Key, Value);
  return T;
}

const char *Kernel1D = R"(
// One block: a tile of BLOCK * ITEMS outputs. Thread t computes outputs
// t, t + BLOCK, ... of the tile (consecutive threads on consecutive shared
// words: no bank conflicts).
template <int BLOCK, int ITEMS>
__global__ void __launch_bounds__(BLOCK) @NAME(const @T *__restrict__ in,
    const @T *__restrict__ w, @T *__restrict__ out, int n) {
  using namespace @NAME_stencil;
  constexpr int TILE = BLOCK * ITEMS;
  typedef Tile<TILE, BLOCK, 1> In;
  __shared__ __align__(16) T s_in[In::PITCH];
  __shared__ T s_w[TAPS];
  const int tid = threadIdx.x;
  const int x0 = blockIdx.x * TILE;
  {
    In tile;
    tile.load(in, true, 1, n, x0, 0, aligned16(in) && x0 + TILE <= n, tid);
    // The weights after the tile's loads are issued, before their stores.
    for (int i = tid; i < TAPS; i += BLOCK)
      s_w[i] = w[i];
    tile.store(s_in, tid);
  }
  __syncthreads();
#pragma unroll
  for (int k = 0; k < ITEMS; ++k) {
    const int i = tid + k * BLOCK;
    T acc = T(0);
#pragma unroll
    for (int dx = 0; dx < FW; ++dx)
      acc += s_w[dx] * s_in[HL - RX + i + dx];
    if (x0 + i < n)
      out[x0 + i] = acc;
  }
}
)";

/// The column of OY outputs a 2D or 3D thread keeps in registers: col is
/// the shared address of its first input (row 0 of the tile's column),
/// @WROW the filter row's plane offset (3D).
const char *ColumnPass = R"(#pragma unroll
    for (int dx = 0; dx < FW; ++dx) {
      // Each value of the column is read once and feeds every output of
      // the column whose filter row covers it.
#pragma unroll
      for (int r = 0; r < OY + FH - 1; ++r) {
        const T v = col[r * In::PITCH + dx];
#pragma unroll
        for (int k = 0; k < OY; ++k)
          if (r - k >= 0 && r - k < FH)
            acc[k] += s_w[(@WROWr - k) * FW + dx] * v;
      }
    }
)";

const char *Kernel2D = R"(
// One block: a tile of TX x (BY * OY) outputs, TX x BY threads. Thread
// (tx, ty) computes the OY outputs of column x0 + tx, rows y0 + ty * OY ..
// y0 + ty * OY + OY - 1, from the tile and its halo in shared memory.
template <int TX, int BY, int OY>
__global__ void __launch_bounds__(TX * BY) @NAME(const @T *__restrict__ in,
    const @T *__restrict__ w, @T *__restrict__ out, int height, int width) {
  using namespace @NAME_stencil;
  constexpr int NT = TX * BY, TH = BY * OY;
  typedef Tile<TX, NT, TH + FH - 1> In;
  __shared__ __align__(16) T s_in[(TH + FH - 1) * In::PITCH];
  __shared__ T s_w[TAPS];
  const int tx = threadIdx.x, ty = threadIdx.y, tid = tx + TX * ty;
  const int x0 = blockIdx.x * TX, y0 = blockIdx.y * TH;
  {
    In tile;
    tile.load(in, true, height, width, x0, y0 - RY,
              aligned16(in) && width % VEC == 0 && x0 + TX <= width, tid);
    // The weights after the tile's loads are issued, before their stores.
    for (int i = tid; i < TAPS; i += NT)
      s_w[i] = w[i];
    tile.store(s_in, tid);
  }
  __syncthreads();
  T acc[OY];
#pragma unroll
  for (int k = 0; k < OY; ++k)
    acc[k] = T(0);
  {
    const T *col = s_in + ty * OY * In::PITCH + HL - RX + tx;
@COLUMN  }
  const int x = x0 + tx;
  if (x < width) {
#pragma unroll
    for (int k = 0; k < OY; ++k) {
      const int y = y0 + ty * OY + k;
      if (y < height)
        out[(long long)y * width + x] = acc[k];
    }
  }
}
)";

const char *KernelSeparable = R"(
// One block: a tile of TX x (BY * OY) outputs, TX x BY threads, in two
// passes over shared memory: the row pass (FW taps along x) of every row of
// the tile and its vertical halo, then the column pass (FH taps along y),
// in which thread (tx, ty) computes the OY outputs of column x0 + tx, rows
// y0 + ty * OY .. y0 + ty * OY + OY - 1. The border commutes with the split:
// a clamped row's row pass is that of the nearest row, a zero row's is 0.
template <int TX, int BY, int OY>
__global__ void __launch_bounds__(TX * BY) @NAME(const @T *__restrict__ in,
    const @T *__restrict__ wr, const @T *__restrict__ wc, @T *__restrict__ out, int height,
    int width) {
  using namespace @NAME_stencil;
  constexpr int NT = TX * BY, TH = BY * OY, ROWS = TH + FH - 1;
  typedef Tile<TX, NT, ROWS> In;
  __shared__ __align__(16) T s_in[ROWS * In::PITCH];
  __shared__ T s_rows[ROWS * TX];  // the row pass, one row of TX a tile row
  __shared__ T s_w[FW + FH];       // wr, then wc
  const int tx = threadIdx.x, ty = threadIdx.y, tid = tx + TX * ty;
  const int x0 = blockIdx.x * TX, y0 = blockIdx.y * TH;
  {
    In tile;
    tile.load(in, true, height, width, x0, y0 - RY,
              aligned16(in) && width % VEC == 0 && x0 + TX <= width, tid);
    // The weights after the tile's loads are issued, before their stores.
    for (int i = tid; i < FW + FH; i += NT)
      s_w[i] = i < FW ? wr[i] : wc[i - FW];
    tile.store(s_in, tid);
  }
  __syncthreads();
  // Row pass: thread (tx, ty) takes rows ty, ty + BY, ... of column tx.
#pragma unroll
  for (int j = 0; j < (ROWS + BY - 1) / BY; ++j) {
    const int r = ty + j * BY;
    if (ROWS % BY == 0 || r < ROWS) {
      const T *p = s_in + r * In::PITCH + HL - RX + tx;
      T a = T(0);
#pragma unroll
      for (int dx = 0; dx < FW; ++dx)
        a += s_w[dx] * p[dx];
      s_rows[r * TX + tx] = a;
    }
  }
  __syncthreads();
  // Column pass: each row sum of the column is read once and feeds every
  // output whose filter covers it.
  T acc[OY];
#pragma unroll
  for (int k = 0; k < OY; ++k)
    acc[k] = T(0);
  const T *col = s_rows + ty * OY * TX + tx;
#pragma unroll
  for (int r = 0; r < OY + FH - 1; ++r) {
    const T v = col[r * TX];
#pragma unroll
    for (int k = 0; k < OY; ++k)
      if (r - k >= 0 && r - k < FH)
        acc[k] += s_w[FW + r - k] * v;
  }
  const int x = x0 + tx;
  if (x < width) {
#pragma unroll
    for (int k = 0; k < OY; ++k) {
      const int y = y0 + ty * OY + k;
      if (y < height)
        out[(long long)y * width + x] = acc[k];
    }
  }
}
)";

const char *Kernel3D = R"(
// One block: a TX x (BY * OY) tile of ZC consecutive output planes, TX x BY
// threads, marching along z. A ring of FD + 1 shared planes (tile and halo)
// holds the FD input planes an output plane reads and the next one: each
// step stores the plane loaded during the previous step, synchronises once,
// issues the loads of the plane after it (in flight during the arithmetic)
// and computes its output plane; thread (tx, ty) computes the OY outputs of
// column x0 + tx, rows y0 + ty * OY .. y0 + ty * OY + OY - 1.
template <int TX, int BY, int OY, int ZC>
__global__ void __launch_bounds__(TX * BY) @NAME(const @T *__restrict__ in,
    const @T *__restrict__ w, @T *__restrict__ out, int depth, int height, int width) {
  using namespace @NAME_stencil;
  constexpr int NT = TX * BY, TH = BY * OY, SLOTS = FD + 1;
  typedef Tile<TX, NT, TH + FH - 1> In;
  constexpr int PLANE = (TH + FH - 1) * In::PITCH;
  __shared__ __align__(16) T s_in[SLOTS * PLANE];
  __shared__ T s_w[TAPS];
  const int tx = threadIdx.x, ty = threadIdx.y, tid = tx + TX * ty;
  const int x0 = blockIdx.x * TX, y0 = blockIdx.y * TH;
  const int z0 = blockIdx.z * ZC, z1 = min(z0 + ZC, depth);
  const long long planeSize = (long long)height * width;
  const bool fast = aligned16(in) && width % VEC == 0 && x0 + TX <= width;
  // Input plane z0 - RZ + j goes to slot j % SLOTS. First the planes
  // z0 - RZ .. z0 + RZ - 1, then z0 + RZ in flight.
  In tile;
#pragma unroll 1
  for (int j = 0; j < FD - 1; ++j) {
    const int p = z0 - RZ + j;
    tile.load(in + min(max(p, 0), depth - 1) * planeSize, p >= 0 && p < depth, height, width,
              x0, y0 - RY, fast, tid);
    tile.store(s_in + j * PLANE, tid);
  }
  {
    const int p = z0 + RZ;
    tile.load(in + min(max(p, 0), depth - 1) * planeSize, p >= 0 && p < depth, height, width,
              x0, y0 - RY, fast, tid);
  }
  // The weights (read after the first barrier of the march).
  for (int i = tid; i < TAPS; i += NT)
    s_w[i] = w[i];
#pragma unroll 1
  for (int z = z0; z < z1; ++z) {
    const int j = z - z0;  // output plane z reads slots j .. j + FD - 1 (mod SLOTS)
    // Slot (j + FD - 1) % SLOTS last held plane z - RZ - 2, read by the step
    // before last, which every thread finished before the last barrier.
    tile.store(s_in + ((j + FD - 1) % SLOTS) * PLANE, tid);
    __syncthreads();
    if (z + 1 < z1) {
      const int p = z + 1 + RZ;
      tile.load(in + min(max(p, 0), depth - 1) * planeSize, p >= 0 && p < depth, height, width,
                x0, y0 - RY, fast, tid);
    }
    T acc[OY];
#pragma unroll
    for (int k = 0; k < OY; ++k)
      acc[k] = T(0);
#pragma unroll
    for (int dz = 0; dz < FD; ++dz) {
      const T *col = s_in + ((j + dz) % SLOTS) * PLANE + ty * OY * In::PITCH + HL - RX + tx;
@COLUMN    }
    const int x = x0 + tx;
    if (x < width) {
#pragma unroll
      for (int k = 0; k < OY; ++k) {
        const int y = y0 + ty * OY + k;
        if (y < height)
          out[z * planeSize + (long long)y * width + x] = acc[k];
      }
    }
  }
}
)";

/// Indents every non-empty line of Text by N spaces.
std::string indent(StringRef Text, int N) {
  std::string Out;
  SmallVector<StringRef, 32> Lines;
  Text.split(Lines, '\n');
  for (size_t I = 0; I < Lines.size(); ++I) {
    if (!Lines[I].empty() && !Lines[I].starts_with("#"))
      Out += std::string(N, ' ');
    Out += Lines[I].str();
    if (I + 1 < Lines.size())
      Out += "\n";
  }
  return Out;
}

std::string kernelText(const Shape &S, StringRef Name) {
  using detail::replaceAll;
  std::string K;
  if (S.Rank == 1) {
    K = Kernel1D;
  } else if (S.Separable) {
    K = KernelSeparable;
  } else if (S.Rank == 2) {
    K = replaceAll(Kernel2D, "@COLUMN", replaceAll(ColumnPass, "@WROW", ""));
  } else {
    K = replaceAll(Kernel3D, "@COLUMN",
                   indent(replaceAll(ColumnPass, "@WROW", "dz * FH + "), 2));
  }
  return replaceAll(replaceAll(K, "@NAME", Name), "@T", scalarInfo(S.Type).Cuda);
}

/// The host wrapper, launching the default instantiation with literal
/// template arguments (so that `forge-port tune` writes tuned ones back)
/// and grid literals that are the tile's extents less one.
std::string wrapperText(const Shape &S, StringRef Name, const Tunables &D) {
  StringRef T = scalarInfo(S.Type).Cuda;
  std::string Launch, Params, Doc;
  if (S.Rank == 1) {
    Doc = "// Computes out[0, n) from in[0, n) and the FW weights w (a correlation:\n"
          "// out[i] = sum_dx w[dx] * in[border(i + dx - RX)]).";
    Params = formatv("const {0} *in, const {0} *w, {0} *out, int n", T).str();
    Launch = formatv("  if (n <= 0)\n    return cudaSuccess;\n"
                     "  if (n > {0})\n    return cudaErrorInvalidValue;\n"
                     "  {1}<{2}, {3}><<<(n + {4}) / {5}, {2}, 0, stream>>>(in, w, out, n);\n",
                     MaxExtent, Name, D.TX, D.OY, D.TX * D.OY - 1, D.TX * D.OY)
                 .str();
  } else if (S.Rank == 2) {
    if (S.Separable) {
      Doc = "// Computes the height x width image out (row-major, width contiguous) from\n"
            "// in with the separable filter w[dy][dx] = wc[dy] * wr[dx]: wr holds the FW\n"
            "// weights of the row pass (along x), wc the FH of the column pass (along y):\n"
            "// out[y][x] = sum_dy wc[dy] * sum_dx wr[dx] * in[border(y + dy - RY)][border(x + dx - RX)].";
      Params = formatv("const {0} *in, const {0} *wr, const {0} *wc, {0} *out,\n    int height, "
                       "int width",
                       T)
                   .str();
    } else {
      Doc = "// Computes the height x width image out (row-major, width contiguous) from\n"
            "// in and the FH x FW weights w (row-major), a correlation:\n"
            "// out[y][x] = sum_dy,dx w[dy][dx] * in[border(y + dy - RY)][border(x + dx - RX)].";
      Params =
          formatv("const {0} *in, const {0} *w, {0} *out,\n    int height, int width", T).str();
    }
    Launch = formatv("  if (height <= 0 || width <= 0)\n    return cudaSuccess;\n"
                     "  if (height > {0} || width > {0})\n    return cudaErrorInvalidValue;\n"
                     "  {1}<{2}, {3}, {4}><<<dim3((width + {5}) / {2}, (height + {6}) / {7}), "
                     "dim3({2}, {3}), 0,\n"
                     "      stream>>>({8}, out, height, width);\n",
                     MaxExtent, Name, D.TX, D.BY, D.OY, D.TX - 1, D.BY * D.OY - 1, D.BY * D.OY,
                     S.Separable ? "in, wr, wc" : "in, w")
                 .str();
  } else {
    Doc = "// Computes the depth x height x width volume out (row-major, width\n"
          "// contiguous) from in and the FD x FH x FW weights w (row-major), a\n"
          "// correlation: out[z][y][x] = sum_dz,dy,dx w[dz][dy][dx] *\n"
          "// in[border(z + dz - RZ)][border(y + dy - RY)][border(x + dx - RX)].";
    Params = formatv("const {0} *in, const {0} *w, {0} *out,\n    int depth, int height, "
                     "int width",
                     T)
                 .str();
    Launch = formatv("  if (depth <= 0 || height <= 0 || width <= 0)\n    return cudaSuccess;\n"
                     "  if (depth > {0} || height > {0} || width > {0})\n"
                     "    return cudaErrorInvalidValue;\n"
                     "  {1}<{2}, {3}, {4}, {5}><<<dim3((width + {6}) / {2}, (height + {7}) / {8}, "
                     "(depth + {9}) / {5}),\n"
                     "      dim3({2}, {3}), 0, stream>>>(in, w, out, depth, height, width);\n",
                     MaxExtent, Name, D.TX, D.BY, D.OY, D.ZC, D.TX - 1, D.BY * D.OY - 1,
                     D.BY * D.OY, D.ZC - 1)
                 .str();
  }
  return formatv("\n{0}\n// Any pointers (16-byte aligned ones read faster); the launch is\n"
                 "// asynchronous on stream. Extents above {1} are refused.\n"
                 "inline cudaError_t forge_{2}({3},\n    cudaStream_t stream = 0) {{\n{4}"
                 "  return cudaGetLastError();\n}\n",
                 Doc, MaxExtent, Name, Params, Launch)
      .str();
}

Json specFor(const Shape &S, const Request &R, StringRef Name, const Tunables &D) {
  using namespace detail;
  Json Sizes = Json::object();
  std::string Count;
  std::vector<std::string> Args;
  Json Scalars = Json::array();
  if (S.Rank == 1) {
    Sizes["N"] = R.Shape[0];
    Count = "N";
    Scalars.push_back(scalarArg("n", Scalar::I32, "N"));
  } else {
    if (S.Rank == 3) {
      Sizes["D"] = R.Shape[0];
      Scalars.push_back(scalarArg("depth", Scalar::I32, "D"));
    }
    Sizes["H"] = R.Shape[S.Rank - 2];
    Sizes["W"] = R.Shape[S.Rank - 1];
    Scalars.push_back(scalarArg("height", Scalar::I32, "H"));
    Scalars.push_back(scalarArg("width", Scalar::I32, "W"));
    Count = S.Rank == 3 ? "D * H * W" : "H * W";
  }
  Json Buffers = Json::array();
  Buffers.push_back(inBuffer("in", S.Type, Count));
  if (S.Separable) {
    Buffers.push_back(inBuffer("wr", S.Type, std::to_string(S.FW)));
    Buffers.push_back(inBuffer("wc", S.Type, std::to_string(S.FH)));
    Args = {"in", "wr", "wc", "out"};
  } else {
    Buffers.push_back(inBuffer("w", S.Type, std::to_string(S.taps())));
    Args = {"in", "w", "out"};
  }
  Buffers.push_back(outBuffer("out", S.Type, Count));
  for (const Json &Sc : Scalars)
    Args.push_back(Sc["name"].get<std::string>());

  Json Spec = {{"kernel", Name.str()}};
  std::vector<std::string> Constraints;
  Json Tunables = Json::array();
  std::string Smem = sharedExpr(S) + " <= " + std::to_string(SharedLimit);
  if (S.Rank == 1) {
    Spec["template_args"] = {"BLOCK", "ITEMS"};
    Spec["grid"] = "ceil_div(N, BLOCK * ITEMS)";
    Spec["block"] = "BLOCK";
    Tunables = {tunable("BLOCK", {64, 128, 256, 512, 1024}, D.TX),
                tunable("ITEMS", {1, 2, 4, 8, 16}, D.OY)};
    Constraints = {Smem};
  } else {
    Json Grid = {"ceil_div(W, TX)", "ceil_div(H, BY * OY)"};
    Tunables = {tunable("TX", {32, 64, 128}, D.TX), tunable("BY", {1, 2, 4, 8, 16, 32}, D.BY),
                tunable("OY", {1, 2, 4, 8, 16}, D.OY)};
    Constraints = {"TX * BY <= 1024", "ceil_div(H, BY * OY) <= 65535", Smem};
    if (S.Rank == 3) {
      Spec["template_args"] = {"TX", "BY", "OY", "ZC"};
      Grid.push_back("ceil_div(D, ZC)");
      Tunables = {tunable("TX", {32, 64}, D.TX), tunable("BY", {1, 2, 4, 8, 16}, D.BY),
                  tunable("OY", {1, 2, 4, 8}, D.OY), tunable("ZC", {4, 8, 16, 32, 64}, D.ZC)};
      Constraints.insert(Constraints.begin() + 2, "ceil_div(D, ZC) <= 65535");
    } else {
      Spec["template_args"] = {"TX", "BY", "OY"};
    }
    Spec["grid"] = Grid;
    Spec["block"] = {"TX", "BY"};
  }
  Spec["sizes"] = Sizes;
  Spec["buffers"] = Buffers;
  Spec["scalars"] = Scalars;
  Spec["args"] = Args;
  Spec["tunables"] = Tunables;
  Spec["constraints"] = Constraints;
  Spec["bytes"] = formatv("{0} * {1}", 2 * S.Bytes, Count).str();
  Spec["flops"] = formatv("{0} * {1}", 2 * S.taps(), Count).str();
  Spec["notes"] = {
      formatv("forge-port new: the stencil template, {0}", describe(R)).str(),
      "bytes: the input read once and the output written once (the halo and the weights are "
      "cache hits); flops: 2 per tap and output"};
  return Spec;
}

} // namespace

Expected<Instance> instantiateStencil(const Request &R) {
  Shape S;
  if (Error E = checkRequest(R, S))
    return std::move(E);
  std::optional<Tunables> D = pickDefaults(S);
  if (!D)
    return makeError("the stencil template's smallest tile and its halo for a {0} filter of "
                     "{1} do not fit {2} bytes of shared memory",
                     join(map_range(R.Filter, [](int E) { return std::to_string(E); }), "x"),
                     scalarInfo(R.Type).Dtype, SharedLimit);
  Expected<std::string> NameOr = detail::kernelName(R, "stencil");
  if (!NameOr)
    return NameOr.takeError();
  const std::string Name = *NameOr;

  std::vector<std::string> How;
  How.push_back(
      "Out[p] is the sum over the filter's offsets o of w[o] * in[border(p + o - radius)] (a "
      "correlation: the filter is not flipped); the weights are an input of the kernel, row-major "
      "over the filter's extents, outermost first.");
  if (S.Rank == 1)
    How.push_back("A block computes BLOCK * ITEMS consecutive outputs from a shared copy of its "
                  "tile and halo, loaded with 16-byte loads where the tile is whole and the input "
                  "aligned.");
  else if (S.Separable)
    How.push_back("A block stages its TX x (BY * OY) tile and the halo in shared memory (16-byte "
                  "loads where the rows are aligned and the tile whole), computes the row pass of "
                  "every staged row into shared memory, then the column pass: each thread keeps "
                  "OY outputs of one column in registers. One launch, no global intermediate.");
  else if (S.Rank == 2)
    How.push_back("A block stages its TX x (BY * OY) tile and the halo in shared memory (16-byte "
                  "loads where the rows are aligned and the tile whole) with the weights; each "
                  "thread keeps OY outputs of one column in registers, so every value it reads "
                  "from shared memory serves all the outputs whose filter covers it.");
  else
    How.push_back("A block marches along z over ZC output planes of a TX x (BY * OY) tile, "
                  "keeping the FD planes (tile and halo) an output plane reads and the next one "
                  "in a ring of shared planes; the next plane's loads are in flight while the "
                  "current one is computed. Each thread keeps OY outputs of one column in "
                  "registers.");
  How.push_back("The template arguments are the tunables of the spec; the wrapper launches the "
                "defaults.");

  Instance I = detail::startInstance("stencil", Name);
  std::string Src = detail::fileComment(R, "stencil", How);
  Src += "#include <cuda_runtime.h>\n\n";
  Src += commonText(S, Name);
  Src += kernelText(S, Name);
  Src += wrapperText(S, Name, *D);
  I.Source = std::move(Src);
  I.Spec = specFor(S, R, Name, *D);
  if (S.Rank == 1)
    I.Notes.push_back(formatv("{0} threads of {1} outputs a block by default", D->TX, D->OY));
  else
    I.Notes.push_back(formatv("tiles of {0} x {1} outputs, {0} x {2} threads, {3} outputs a "
                              "thread{4} by default",
                              D->TX, D->BY * D->OY, D->BY, D->OY,
                              S.Rank == 3 ? formatv(", {0} planes a block", D->ZC).str() : "")
                          .str());
  I.Notes.push_back(formatv("{0} bytes of static shared memory a block at the defaults; the "
                            "spec's constraints keep every configuration within {1}",
                            sharedBytes(S, *D), SharedLimit)
                        .str());
  if (S.Separable)
    I.Notes.push_back("separable: wr (the row pass, FW weights) and wc (the column pass, FH "
                      "weights) are two input buffers");
  return I;
}

std::vector<Request> stencilSamples() {
  auto Make = [](StringRef Name, Scalar T, std::vector<int64_t> Shape, std::vector<int> Filter,
                 StringRef Border, bool Separable = false) {
    Request R;
    R.Kind = OpKind::Stencil;
    R.Name = Name.str();
    R.Type = T;
    R.Shape = std::move(Shape);
    R.Filter = std::move(Filter);
    R.Border = Border.str();
    R.Separable = Separable;
    return R;
  };
  return {
      Make("stencil_1d_r3_clamp_f32", Scalar::F32, {100003}, {7}, "clamp"),
      Make("stencil_1d_r2_zero_f64", Scalar::F64, {4097}, {5}, "zero"),
      Make("stencil_2d_3x3_zero_f32", Scalar::F32, {1001, 777}, {3, 3}, "zero"),
      Make("stencil_2d_5x5_clamp_f32", Scalar::F32, {513, 1030}, {5, 5}, "clamp"),
      Make("stencil_2d_3x3_clamp_f32_large", Scalar::F32, {2049, 2052}, {3, 3}, "clamp"),
      Make("stencil_2d_5x5_zero_f64", Scalar::F64, {333, 1002}, {5, 5}, "zero"),
      Make("stencil_2d_sep7x7_zero_f32", Scalar::F32, {700, 901}, {7, 7}, "zero", true),
      Make("stencil_2d_sep5x9_clamp_f32", Scalar::F32, {129, 260}, {5, 9}, "clamp", true),
      Make("stencil_3d_3x3x3_clamp_f32", Scalar::F32, {67, 45, 130}, {3, 3, 3}, "clamp"),
      Make("stencil_3d_3x5x3_zero_f64", Scalar::F64, {20, 33, 42}, {3, 5, 3}, "zero"),
  };
}

} // namespace forge::templates
