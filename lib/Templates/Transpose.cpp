//===- Templates/Transpose.cpp - A tiled matrix transpose -----------------===//
///
/// \file
/// The tiled transpose through padded shared memory. Locals are named ft_*
/// so that they cannot hide the parameters.
///
//===----------------------------------------------------------------------===//
#include "forge/Templates/Transpose.h"
#include "TemplateUtil.h"
#include "forge/Support/Error.h"
#include "llvm/Support/FormatVariadic.h"
#include <climits>

using namespace llvm;

namespace forge::templates {

Expected<Instance> instantiateTranspose(const Request &R) {
  using namespace detail;
  if (Error E = checkShape(R, 2, "a transpose"))
    return std::move(E);
  const ScalarInfo &TI = scalarInfo(R.Type);
  if (TI.Bytes < 2)
    return makeError("the transpose template takes 2-, 4- or 8-byte elements, not {0}",
                     TI.Dtype);
  const int64_t Rows = R.Shape[0], Cols = R.Shape[1];
  if (Rows > INT_MAX || Cols > INT_MAX)
    return makeError("the transpose template takes rows and cols up to {0} (int), not {1} x {2}",
                     INT_MAX, Rows, Cols);
  Expected<std::string> NameOr = kernelName(R, "transpose");
  if (!NameOr)
    return NameOr.takeError();
  const std::string Name = *NameOr;
  const std::string T = TI.Cuda.str();
  // Padding of a tile row: one element, or one 4-byte word of 2-byte ones,
  // so that a column's elements fall in 32 different banks.
  const int Pad = TI.Bytes >= 4 ? 1 : 2;
  StringRef Header = R.Type == Scalar::F16    ? "#include <cuda_fp16.h>\n"
                     : R.Type == Scalar::BF16 ? "#include <cuda_bf16.h>\n"
                                              : "";

  Instance I = startInstance("transpose", Name);
  std::string S = fileComment(
      R, "transpose",
      {"out[c * rows + r] = in[r * cols + c] for a row-major rows x cols in. A block of TILE x "
       "BLOCK_ROWS threads reads a TILE x TILE tile of in row by row (consecutive threads, "
       "consecutive columns: coalesced) into shared memory, then writes the tile's columns as "
       "rows of out (coalesced again); each thread moves TILE / BLOCK_ROWS elements each way.",
       formatv("The shared tile has TILE + {0} columns so that reading one of its columns "
               "touches 32 different banks. Edge tiles are guarded element by element, so any "
               "rows and cols work. grid.x runs over the column tiles and grid.y over the row "
               "tiles, up to 65535; beyond that a block also takes the row tiles y + gridDim.y, "
               "y + 2 * gridDim.y, ...",
               Pad)
           .str()});
  S += "#include <cuda_runtime.h>\n" + Header.str() + "\n";
  S += formatv(R"(// out = in^T for a row-major rows x cols in (out is cols x rows).
// The launch bounds ask for 2048 threads' worth of blocks per SM (32
// registers a thread), so that enough loads are in flight.
template <int TILE, int BLOCK_ROWS>
__global__ void __launch_bounds__(TILE * BLOCK_ROWS, 2048 / (TILE * BLOCK_ROWS)) {1}(
    const {0} *__restrict__ in, {0} *__restrict__ out, int rows, int cols) {{
  static_assert(TILE % BLOCK_ROWS == 0, "a block's rows must divide the tile");
  // {2} element{3} of padding a row: a column of the tile spans 32 banks.
  __shared__ {0} ft_tile[TILE][TILE + {2}];
  const long long ft_tiles_y = ((long long)rows + TILE - 1) / TILE;
  const long long ft_c0 = (long long)blockIdx.x * TILE; // the tile's first column of in
  for (long long ft_ty = blockIdx.y; ft_ty < ft_tiles_y; ft_ty += gridDim.y) {{
    const long long ft_r0 = ft_ty * TILE; // the tile's first row of in
    // Read the tile: thread (x, y) reads in[ft_r0 + y + j][ft_c0 + x].
    {{
      const long long ft_c = ft_c0 + threadIdx.x;
#pragma unroll
      for (int ft_j = 0; ft_j < TILE; ft_j += BLOCK_ROWS) {{
        const long long ft_r = ft_r0 + threadIdx.y + ft_j;
        if (ft_r < rows && ft_c < cols)
          ft_tile[threadIdx.y + ft_j][threadIdx.x] = __ldg(in + ft_r * cols + ft_c);
      }
    }
    __syncthreads();
    // Write it transposed: thread (x, y) writes out[ft_c0 + y + j][ft_r0 + x],
    // which is in[ft_r0 + x][ft_c0 + y + j], from column x of the tile.
    {{
      const long long ft_r = ft_r0 + threadIdx.x;
#pragma unroll
      for (int ft_j = 0; ft_j < TILE; ft_j += BLOCK_ROWS) {{
        const long long ft_c = ft_c0 + threadIdx.y + ft_j;
        if (ft_r < rows && ft_c < cols)
          out[ft_c * rows + ft_r] = ft_tile[threadIdx.x][threadIdx.y + ft_j];
      }
    }
    // The tile is read again by this block's next row tile, if any.
    if (ft_ty + gridDim.y < ft_tiles_y)
      __syncthreads();
  }
}

// out = in^T on the current device: in is a row-major rows x cols matrix,
// out (cols x rows) must not overlap it. Tiles of 64 x 64, blocks of 64 x 8.
inline cudaError_t forge_{1}(const {0} *in, {0} *out, int rows, int cols,
{4}cudaStream_t stream = 0) {{
  if (rows <= 0 || cols <= 0)
    return cudaSuccess;
  // The spec's tunables. The grid is computed in the launch, so that values
  // forge-port tune writes here reach it too. grid.y is at most 65535; the
  // kernel loops over the row tiles beyond it.
  constexpr int TILE = 64, BLOCK_ROWS = 8;
  {1}<TILE, BLOCK_ROWS><<<
      dim3((unsigned)(((long long)cols + TILE - 1) / TILE),
           (unsigned)(((long long)rows + TILE - 1) / TILE < 65535
                          ? ((long long)rows + TILE - 1) / TILE
                          : 65535)),
      dim3(TILE, BLOCK_ROWS), 0, stream>>>(in, out, rows, cols);
  return cudaGetLastError();
}
)",
               T, Name, Pad, Pad == 1 ? "" : "s",
               std::string(("inline cudaError_t forge_" + Name + "(").size(), ' '))
           .str();
  I.Source = std::move(S);

  I.Spec = {{"kernel", Name},
            {"template_args", {"TILE", "BLOCK_ROWS"}},
            {"sizes", {{"ROWS", Rows}, {"COLS", Cols}}},
            {"buffers",
             {inBuffer("in", R.Type, "ROWS * COLS"), outBuffer("out", R.Type, "ROWS * COLS")}},
            {"scalars", {scalarArg("rows", Scalar::I32, "ROWS"), scalarArg("cols", Scalar::I32, "COLS")}},
            {"args", {"in", "out", "rows", "cols"}},
            {"grid", {"ceil_div(COLS, TILE)", "min(ceil_div(ROWS, TILE), 65535)"}},
            {"block", {"TILE", "BLOCK_ROWS"}},
            {"tunables",
             {tunable("TILE", {32, 64}, 64), tunable("BLOCK_ROWS", {2, 4, 8, 16, 32}, 8)}},
            {"constraints",
             {"TILE % BLOCK_ROWS == 0", "TILE * BLOCK_ROWS <= 1024",
              formatv("TILE * (TILE + {0}) * {1} <= 49152", Pad, TI.Bytes).str()}},
            {"bytes", formatv("2 * {0} * ROWS * COLS", TI.Bytes).str()},
            {"flops", "0"},
            {"notes",
             {"forge-port new: the transpose template; TILE x TILE tiles through padded shared "
              "memory, blocks of TILE x BLOCK_ROWS threads; grid.y capped at 65535 (the kernel "
              "loops over the row tiles beyond)"}}};
  I.Notes.push_back("tiles of 64 x 64 and blocks of 64 x 8 by default (TILE 32 or 64, "
                    "BLOCK_ROWS dividing TILE)");
  if (TI.Bytes == 2)
    I.Notes.push_back("2-byte elements: the tile row is padded by 2 elements (one bank)");
  return I;
}

std::vector<Request> transposeSamples() {
  auto Make = [](StringRef Name, Scalar T, int64_t Rows, int64_t Cols) {
    Request R;
    R.Kind = OpKind::Transpose;
    R.Name = Name.str();
    R.Type = T;
    R.Shape = {Rows, Cols};
    return R;
  };
  return {Make("transpose_f32", Scalar::F32, 1001, 777),
          Make("transpose_f64", Scalar::F64, 33, 4099),
          Make("transpose_row_f32", Scalar::F32, 1, 1000003),
          Make("transpose_u16", Scalar::U16, 517, 259),
          Make("transpose_wide_f32", Scalar::F32, 2049, 3001),
          // 65537 row tiles of 64: grid.y is capped, blocks loop.
          Make("transpose_tall_i32", Scalar::I32, 4194319, 2)};
}

} // namespace forge::templates
