//===- Templates/RowSoftmax.cpp - Softmax of every row of a matrix --------===//
///
/// \file
/// The generated text is ordinary CUDA with comments, written below as raw
/// text with %KEY% placeholders; every file-scope name starts with the
/// instance's name so that several instances live in one translation unit.
///
/// The three paths live in one kernel and are chosen by cols at run time,
/// so the wrapper takes any shape; the instance's defaults (and the spec's
/// grid) are chosen for the request's cols.
///
//===----------------------------------------------------------------------===//
#include "forge/Templates/RowSoftmax.h"
#include "TemplateUtil.h"
#include "forge/Support/Error.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"
#include <algorithm>

using namespace llvm;

namespace forge::templates {

namespace {

const char *const Text = R"(
// Thread t of P loads its ITEMS elements of row[0, cols) into v as floats
// (-inf past the end). With vec (the row is 16-byte aligned) element k is
// column ((k / %VEC%) * P + t) * %VEC% + k % %VEC%, read %VEC% at a time with
// 16-byte loads; otherwise column k * P + t, one at a time. Either way a
// warp's loads are consecutive.
template <int ITEMS, int P>
__device__ __forceinline__ void %N%_load(float (&v)[ITEMS], const %T% *row, int cols, int t,
                                         bool vec) {
  constexpr int VEC = %VEC%;
  if (vec) {
#pragma unroll
    for (int j = 0; j < ITEMS / VEC; ++j) {
      const int base = (j * P + t) * VEC;
      if (base + VEC <= cols) {
        const uint4 q = __ldg(reinterpret_cast<const uint4 *>(row + base));
        %T% e[VEC];
        memcpy(e, &q, sizeof q);
#pragma unroll
        for (int k = 0; k < VEC; ++k)
          v[j * VEC + k] = %TOF%(e[k]);
      } else {
#pragma unroll
        for (int k = 0; k < VEC; ++k)
          v[j * VEC + k] = base + k < cols ? %TOF%(__ldg(row + base + k)) : %NEGINF%;
      }
    }
  } else {
#pragma unroll
    for (int k = 0; k < ITEMS; ++k)
      v[k] = k * P + t < cols ? %TOF%(__ldg(row + k * P + t)) : %NEGINF%;
  }
}

// Stores what %N%_load loaded (the same layout), columns below cols only.
template <int ITEMS, int P>
__device__ __forceinline__ void %N%_store(const float (&v)[ITEMS], %T% *row, int cols, int t,
                                          bool vec) {
  constexpr int VEC = %VEC%;
  if (vec) {
#pragma unroll
    for (int j = 0; j < ITEMS / VEC; ++j) {
      const int base = (j * P + t) * VEC;
      if (base + VEC <= cols) {
        %T% e[VEC];
#pragma unroll
        for (int k = 0; k < VEC; ++k)
          e[k] = %FROMF%(v[j * VEC + k]);
        uint4 q;
        memcpy(&q, e, sizeof q);
        __stwb(reinterpret_cast<uint4 *>(row + base), q); // one 16-byte store
      } else {
#pragma unroll
        for (int k = 0; k < VEC; ++k)
          if (base + k < cols)
            row[base + k] = %FROMF%(v[j * VEC + k]);
      }
    }
  } else {
#pragma unroll
    for (int k = 0; k < ITEMS; ++k)
      if (k * P + t < cols)
        row[k * P + t] = %FROMF%(v[k]);
  }
}

// exp(x - m), as exp2 of a scaled difference; exactly 0 for x = -inf (a
// masked element), also when m is -inf. A row of only -inf gives 0 / 0 =
// NaN, and a NaN or +inf element makes its row NaN, as the formula does.
__device__ __forceinline__ float %N%_exp(float x, float m) {
  return x == %NEGINF% ? 0.0f : exp2f((x - m) * 1.4426950408889634f);
}

// Reductions over a warp (every lane gets the result) and over a block
// (every thread gets it; scratch is 32 floats of shared memory, free again
// when they return).
__device__ __forceinline__ float %N%_warp_max(float x) {
#pragma unroll
  for (int d = 16; d > 0; d >>= 1)
    x = fmaxf(x, __shfl_xor_sync(0xffffffffu, x, d));
  return x;
}

__device__ __forceinline__ float %N%_warp_sum(float x) {
#pragma unroll
  for (int d = 16; d > 0; d >>= 1)
    x += __shfl_xor_sync(0xffffffffu, x, d);
  return x;
}

template <int BLOCK>
__device__ __forceinline__ float %N%_block_max(float x, float *scratch) {
  x = %N%_warp_max(x);
  if ((threadIdx.x & 31) == 0)
    scratch[threadIdx.x / 32] = x;
  __syncthreads();
  x = scratch[0];
#pragma unroll
  for (int w = 1; w < BLOCK / 32; ++w)
    x = fmaxf(x, scratch[w]);
  __syncthreads();
  return x;
}

template <int BLOCK>
__device__ __forceinline__ float %N%_block_sum(float x, float *scratch) {
  x = %N%_warp_sum(x);
  if ((threadIdx.x & 31) == 0)
    scratch[threadIdx.x / 32] = x;
  __syncthreads();
  x = scratch[0];
#pragma unroll
  for (int w = 1; w < BLOCK / 32; ++w)
    x += scratch[w];
  __syncthreads();
  return x;
}

// The softmax of every row of the row-major rows x cols matrix in, into out,
// in one launch. Rows of up to 32 * WARP_ITEMS columns: a warp per row, the
// row in registers. Up to BLOCK * ITEMS: a block per row, the row in
// registers. Longer: a block per row, a running maximum and a rescaled sum
// (online softmax) over chunks of BLOCK * ITEMS, then a second pass that
// writes. Rows are a grid-stride loop (of warps or of blocks), so any grid
// is correct; one warp or block per row is the usual one.
// (__launch_bounds__(BLOCK, 1): without the 1, ptxas spilled some small
// configurations, keeping them to fewer registers than they need.)
template <int BLOCK, int WARP_ITEMS, int ITEMS>
__global__ void __launch_bounds__(BLOCK, 1) %N%(
    const %T% *__restrict__ in, %T% *__restrict__ out, int rows, int cols) {
  static_assert(BLOCK % 32 == 0 && BLOCK >= 32 && BLOCK <= 1024, "BLOCK: whole warps, up to 1024");
  static_assert(WARP_ITEMS % %VEC% == 0 && WARP_ITEMS >= %VEC% && WARP_ITEMS <= 64,
                "WARP_ITEMS: whole 16-byte vectors, up to 64");
  static_assert(ITEMS % %VEC% == 0 && ITEMS >= %VEC% && ITEMS <= 64,
                "ITEMS: whole 16-byte vectors, up to 64");
  if (rows <= 0 || cols <= 0)
    return;
  if (cols <= 32 * WARP_ITEMS) {
    // A warp per row.
    const int lane = threadIdx.x & 31;
    const long long warps = (long long)gridDim.x * (BLOCK / 32);
    for (long long r = (long long)blockIdx.x * (BLOCK / 32) + threadIdx.x / 32; r < rows;
         r += warps) {
      const %T% *src = in + r * cols;
      %T% *dst = out + r * cols;
      const bool vec = (((unsigned long long)src | (unsigned long long)dst) & 15u) == 0;
      float v[WARP_ITEMS];
      %N%_load<WARP_ITEMS, 32>(v, src, cols, lane, vec);
      float m = %NEGINF%;
#pragma unroll
      for (int k = 0; k < WARP_ITEMS; ++k)
        m = fmaxf(m, v[k]);
      m = %N%_warp_max(m);
      float s = 0.0f;
#pragma unroll
      for (int k = 0; k < WARP_ITEMS; ++k) {
        v[k] = %N%_exp(v[k], m);
        s += v[k];
      }
      const float inv = 1.0f / %N%_warp_sum(s);
#pragma unroll
      for (int k = 0; k < WARP_ITEMS; ++k)
        v[k] *= inv;
      %N%_store<WARP_ITEMS, 32>(v, dst, cols, lane, vec);
    }
    return;
  }
  // A block per row.
  __shared__ float scratch[32];
  for (long long r = blockIdx.x; r < rows; r += gridDim.x) {
    const %T% *src = in + r * cols;
    %T% *dst = out + r * cols;
    const bool vec = (((unsigned long long)src | (unsigned long long)dst) & 15u) == 0;
    float v[ITEMS];
    if (cols <= BLOCK * ITEMS) {
      // The row in registers.
      %N%_load<ITEMS, BLOCK>(v, src, cols, threadIdx.x, vec);
      float m = %NEGINF%;
#pragma unroll
      for (int k = 0; k < ITEMS; ++k)
        m = fmaxf(m, v[k]);
      m = %N%_block_max<BLOCK>(m, scratch);
      float s = 0.0f;
#pragma unroll
      for (int k = 0; k < ITEMS; ++k) {
        v[k] = %N%_exp(v[k], m);
        s += v[k];
      }
      const float inv = 1.0f / %N%_block_sum<BLOCK>(s, scratch);
#pragma unroll
      for (int k = 0; k < ITEMS; ++k)
        v[k] *= inv;
      %N%_store<ITEMS, BLOCK>(v, dst, cols, threadIdx.x, vec);
      continue;
    }
    // Online: each thread keeps the largest element m it has seen and the
    // sum s of exp(x - m), rescaled by exp(old m - new m) when m grows.
    float m = %NEGINF%, s = 0.0f;
    for (long long c0 = 0; c0 < cols; c0 += BLOCK * ITEMS) {
      %N%_load<ITEMS, BLOCK>(v, src + c0, (int)(cols - c0), threadIdx.x, vec);
      float cm = m;
#pragma unroll
      for (int k = 0; k < ITEMS; ++k)
        cm = fmaxf(cm, v[k]);
      if (cm != m)
        s *= exp2f((m - cm) * 1.4426950408889634f);
      m = cm;
#pragma unroll
      for (int k = 0; k < ITEMS; ++k)
        s += %N%_exp(v[k], m);
    }
    // The row's maximum, and every thread's sum rescaled to it.
    const float rm = %N%_block_max<BLOCK>(m, scratch);
    if (m != rm)
      s *= exp2f((m - rm) * 1.4426950408889634f);
    const float inv = 1.0f / %N%_block_sum<BLOCK>(s, scratch);
    for (long long c0 = 0; c0 < cols; c0 += BLOCK * ITEMS) {
      %N%_load<ITEMS, BLOCK>(v, src + c0, (int)(cols - c0), threadIdx.x, vec);
#pragma unroll
      for (int k = 0; k < ITEMS; ++k)
        v[k] = %N%_exp(v[k], rm) * inv;
      %N%_store<ITEMS, BLOCK>(v, dst + c0, (int)(cols - c0), threadIdx.x, vec);
    }
  }
}

// The softmax of every row of the row-major rows x cols matrix in, into out
// (separate matrices). One launch on the current device: a warp per row when cols <= %WARPCOLS% (%ROWSPB% rows per
// block of %BLOCK%), else a block of %BLOCK% per row (the row in registers up to
// %BLOCKCOLS% columns, two passes beyond). Any pointers work; 16-byte accesses
// need rows that are 16-byte aligned.
inline cudaError_t forge_%N%(
    const %T% *in, %T% *out, int rows, int cols, cudaStream_t stream = 0) {
  if (rows <= 0 || cols <= 0)
    return cudaSuccess;
  const long long blocks = cols <= %WARPCOLS% ? (rows + %ROWSPB% - 1) / %ROWSPB% : rows;
  %N%<%BLOCK%, %WARPITEMS%, %ITEMS%><<<(unsigned int)blocks, %BLOCK%, 0, stream>>>(in, out, rows, cols);
  return cudaGetLastError();
}
)";

/// The smallest power of two >= X, within [Lo, Hi].
int64_t pow2Within(int64_t X, int64_t Lo, int64_t Hi) {
  int64_t P = Lo;
  while (P < X && P < Hi)
    P *= 2;
  return P;
}

} // namespace

Expected<Instance> instantiateRowSoftmax(const Request &R) {
  using namespace detail;
  if (Error E = checkShape(R, 2, "a row softmax"))
    return std::move(E);
  const ScalarInfo &TI = scalarInfo(R.Type);
  if (R.Type != Scalar::F32 && R.Type != Scalar::F16 && R.Type != Scalar::BF16)
    return makeError("the row-softmax template takes f32, f16 or bf16 elements, not {0}",
                     TI.Dtype);
  const int64_t Rows = R.Shape[0], Cols = R.Shape[1];
  if (Rows > INT32_MAX || Cols > INT32_MAX)
    return makeError("the row-softmax template takes int rows and columns (up to {0}), not "
                     "{1} x {2}",
                     INT32_MAX, Rows, Cols);
  Expected<std::string> NameOr = kernelName(R, "row_softmax");
  if (!NameOr)
    return NameOr.takeError();
  const std::string Name = *NameOr;

  const int Vec = 16 / TI.Bytes;
  // Defaults for the request's cols: a warp per row up to 1024 columns (the
  // fewest registers that hold the row), else a block per row, the row in
  // registers up to 1024 * 32 columns, two passes beyond.
  int64_t Block, WarpItems, Items;
  if (Cols <= 1024) {
    Block = 128;
    WarpItems = pow2Within(divideCeil(Cols, 32), Vec, 32);
    Items = Vec;
  } else {
    Block = Cols <= 256 * 32 ? 256 : 1024;
    WarpItems = Vec;
    Items = pow2Within(divideCeil(Cols, Block), Vec, 32);
    if (Cols > Block * Items)
      Items = 16; // two passes over chunks of 16K columns
  }
  std::vector<int64_t> ItemValues;
  for (int64_t V = Vec; V <= 32; V *= 2)
    ItemValues.push_back(V);
  const char *Path = Cols <= 32 * WarpItems      ? "a warp per row, the row in registers"
                     : Cols <= Block * Items ? "a block per row, the row in registers"
                                             : "a block per row, two passes (online softmax)";

  const std::string ToF = R.Type == Scalar::F16    ? "__half2float"
                          : R.Type == Scalar::BF16 ? "__bfloat162float"
                                                   : "";
  const std::string FromF = R.Type == Scalar::F16    ? "__float2half_rn"
                            : R.Type == Scalar::BF16 ? "__float2bfloat16_rn"
                                                     : "";
  Instance I = startInstance("row-softmax", Name);
  std::vector<std::string> How = {
      "One launch, three paths chosen by cols at run time: up to 32 * WARP_ITEMS columns a warp "
      "per row (the row read once into registers, shuffle reductions for the maximum and the "
      "sum, written once); up to BLOCK * ITEMS a block per row, the row in registers, "
      "reductions through shared memory; longer rows a block per row with a running maximum "
      "and a rescaled sum (online softmax), then a second pass that writes.",
      "exp(x - max) is computed as exp2f((x - max) * log2(e)) in float; 16-bit elements are "
      "converted to float and the result rounded once. 16-byte loads and stores where a row of "
      "both matrices is 16-byte aligned (checked per row), one element at a time otherwise. A "
      "-inf element gives 0 (a masked column); a row of only -inf, or one holding NaN or +inf, "
      "gives NaN, as the formula does.",
      formatv("For this request ({0} columns): {1}.", Cols, Path).str()};
  std::string S = fileComment(R, "row-softmax", How);
  S += "#include <cuda_runtime.h>\n";
  if (R.Type == Scalar::F16)
    S += "#include <cuda_fp16.h>\n";
  if (R.Type == Scalar::BF16)
    S += "#include <cuda_bf16.h>\n";
  S += "#include <cstring>\n";
  std::string Body = Text;
  auto Put = [&](StringRef Key, StringRef Value) { Body = replaceAll(Body, Key, Value); };
  Put("%WARPCOLS%", std::to_string(32 * WarpItems));
  Put("%BLOCKCOLS%", std::to_string(Block * Items));
  Put("%ROWSPB%", std::to_string(Block / 32));
  Put("%BLOCK%", std::to_string(Block));
  Put("%WARPITEMS%", std::to_string(WarpItems));
  Put("%ITEMS%", std::to_string(Items));
  Put("%VEC%", std::to_string(Vec));
  Put("%NEGINF%", "__int_as_float(0xff800000)");
  Put("%TOF%", ToF);
  Put("%FROMF%", FromF);
  Put("%T%", TI.Cuda);
  Put("%N%", Name);
  S += Body;
  I.Source = std::move(S);

  I.Spec = {{"kernel", Name},
            {"template_args", {"BLOCK", "WARP_ITEMS", "ITEMS"}},
            {"sizes", {{"R", Rows}, {"C", Cols}}},
            {"buffers",
             {inBuffer("in", R.Type, "R * C", -8, 8), outBuffer("out", R.Type, "R * C")}},
            {"scalars", {scalarArg("rows", Scalar::I32, "R"), scalarArg("cols", Scalar::I32, "C")}},
            {"args", {"in", "out", "rows", "cols"}},
            // A warp per row, or a block per row (what the kernel does for
            // these cols and tunables).
            {"grid", "(C <= 32 * WARP_ITEMS) * ceil_div(R, BLOCK / 32) + (C > 32 * WARP_ITEMS) * R"},
            {"block", "BLOCK"},
            {"tunables", {tunable("BLOCK", {64, 128, 256, 512, 1024}, Block),
                          tunable("WARP_ITEMS", ItemValues, WarpItems),
                          tunable("ITEMS", ItemValues, Items)}},
            {"bytes", formatv("2 * {0} * R * C", TI.Bytes).str()},
            {"flops", "5 * R * C"},
            {"notes",
             {formatv("forge-port new: the row-softmax template; {0} columns: {1}", Cols, Path)
                  .str()}}};
  I.Notes.push_back(formatv("{0} columns: {1} (BLOCK {2}, WARP_ITEMS {3}, ITEMS {4})", Cols, Path,
                            Block, WarpItems, Items));
  if (Cols > Block * Items && Cols > 32 * WarpItems)
    I.Notes.push_back("rows longer than BLOCK * ITEMS are read twice (the second read mostly "
                      "from L2); few long rows use few SMs (a block per row)");
  return I;
}

std::vector<Request> rowSoftmaxSamples() {
  auto Make = [](StringRef Name, Scalar T, int64_t Rows, int64_t Cols) {
    Request R;
    R.Kind = OpKind::RowSoftmax;
    R.Name = Name.str();
    R.Type = T;
    R.Shape = {Rows, Cols};
    return R;
  };
  return {Make("row_softmax_f32_warp", Scalar::F32, 4097, 1000),
          Make("row_softmax_f16_narrow", Scalar::F16, 3001, 77),
          Make("row_softmax_bf16_block", Scalar::BF16, 129, 5003),
          Make("row_softmax_f32_online", Scalar::F32, 33, 40001),
          Make("row_softmax_f16_online", Scalar::F16, 17, 40009),
          Make("row_softmax_f32_one_column", Scalar::F32, 7, 1)};
}

} // namespace forge::templates
