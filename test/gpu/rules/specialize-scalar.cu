// The specialize-scalar rule on stencils whose mask width or radius is a
// kernel parameter (test/gpu/Inputs/rules/stencil_runtime.cu), each
// specialised for its spec's value (test/gpu/Inputs/rules/specialize/:
// conv2d_basic mw 5, box_r r 2, conv1d mask width 7, conv2d_radius r 3),
// then tiled by smem-stencil-tiling on the specialised copy (a constant
// tile, coefficients in registers, loaded after the test of the spec's
// values). The rewrites compute bitwise what the originals compute for
// every width and radius (the spec's value: the specialised copy, tiled on
// the rewrite's block and untiled on the others; any other value: the
// original body in the __noinline__ function), on sizes that are multiples
// of neither the block nor 4 (1037 x 531, 77 x 5, 1 x 1; 1000003, 37, 1),
// on aligned pointers and on pointers a few elements past cudaMalloc's
// 256-byte boundary, on the block each rewrite was made for and three
// other shapes, one with a second z layer. The outputs are poisoned with
// NaN bytes before each run and compared bit for bit; nvcc's default
// contraction (one fma per tap in both). `check --bench` times conv2d_basic
// at 8192 x 8192 with its 5 x 5 mask (the spec's) on 16 x 16 blocks.
//
// The same harness, built with -DFORGE_ROWS, checks stencil-register-rows
// on the specialised kernels of the three 2D stencils instead of the tile
// (4 rows per thread, its first proposal): the fallback, given the
// thread's indices, runs per row with the row's. Each candidate runs on
// the grid divided by the rows and on the original grid, every block shape
// (the rewrite is correct for any); the spec's value is the "rows" path.
// REQUIRES: gpu, cuda
// RUN: rm -rf %t.d && mkdir -p %t.d
// RUN: forge-port propose %S/../Inputs/rules/stencil_runtime.cu --kernel conv2d_basic --spec %S/../Inputs/rules/specialize/conv2d_basic.json --rules=specialize-scalar --apply -o %t.d/s1.cu
// RUN: forge-port propose %t.d/s1.cu --kernel box_r --spec %S/../Inputs/rules/specialize/box_r.json --rules=specialize-scalar --apply -o %t.d/s2.cu
// RUN: forge-port propose %t.d/s2.cu --kernel conv1d --spec %S/../Inputs/rules/specialize/conv1d.json --rules=specialize-scalar --apply -o %t.d/s3.cu
// RUN: forge-port propose %t.d/s3.cu --kernel conv2d_radius --spec %S/../Inputs/rules/specialize/conv2d_radius.json --rules=specialize-scalar --apply -o %t.d/s4.cu
// RUN: forge-port propose %t.d/s4.cu --kernel conv2d_basic --spec %S/../Inputs/rules/specialize/conv2d_basic.json --rules=smem-stencil-tiling --apply -o %t.d/s5.cu
// RUN: forge-port propose %t.d/s5.cu --kernel box_r --spec %S/../Inputs/rules/specialize/box_r.json --rules=smem-stencil-tiling --apply -o %t.d/s6.cu
// RUN: forge-port propose %t.d/s6.cu --kernel conv1d --spec %S/../Inputs/rules/specialize/conv1d.json --rules=smem-stencil-tiling --apply -o %t.d/s7.cu
// RUN: forge-port propose %t.d/s7.cu --kernel conv2d_radius --spec %S/../Inputs/rules/specialize/conv2d_radius.json --rules=smem-stencil-tiling --apply -o %t.d/stencil_runtime.specialized.cu
// RUN: FileCheck %s --check-prefix=REWRITE --input-file=%t.d/stencil_runtime.specialized.cu
// REWRITE-LABEL: void conv2d_basic_forge_any(
// REWRITE-LABEL: __global__ void conv2d_basic(
// REWRITE-NEXT: if (mw != 5) {
// REWRITE: __shared__ float img_tile[20][
// REWRITE-LABEL: __global__ void box_r(
// REWRITE-NEXT: if (r != 2) {
// REWRITE: __shared__ float in_tile[12][
// REWRITE-LABEL: __global__ void conv1d(
// REWRITE-NEXT: if (mask_width != 7) {
// REWRITE: __shared__ float N_tile[262];
// REWRITE-LABEL: __global__ void conv2d_radius(
// REWRITE: if (r != 3) {
// REWRITE: __shared__ float in_tile[14][
// RUN: %nvcc -arch=native -O3 -I%S/../Inputs/rules -I%t.d %s -o %t.d/check
// RUN: %t.d/check | FileCheck %s --implicit-check-not=MISMATCH --implicit-check-not=FAIL
// CHECK: conv2d_basic 1037x531 mw 0, block 16x16x1 (fallback), aligned: ok max_abs_err 0 rel_l2 0
// CHECK: conv2d_basic 1037x531 mw 5, block 16x16x1 (tiled), aligned: ok max_abs_err 0 rel_l2 0
// CHECK: conv2d_basic 1037x531 mw 5, block 32x8x1 (specialised), aligned: ok max_abs_err 0 rel_l2 0
// CHECK: conv2d_basic 1037x531 mw 7, block 16x16x1 (fallback), aligned: ok max_abs_err 0 rel_l2 0
// CHECK: conv2d_basic 1037x531 mw 5, block 16x16x1 (tiled), offset pointers: ok max_abs_err 0 rel_l2 0
// CHECK: conv2d_basic 1x1 mw 33, block 16x16x2 (fallback), offset pointers: ok max_abs_err 0 rel_l2 0
// CHECK: box_r 1037x531 r 2, block 32x8x1 (tiled), aligned: ok max_abs_err 0 rel_l2 0
// CHECK: box_r 1037x531 r 3, block 32x8x1 (fallback), offset pointers: ok max_abs_err 0 rel_l2 0
// CHECK: conv1d 1000003 mw 7, block 256x1x1 (tiled), aligned: ok max_abs_err 0 rel_l2 0
// CHECK: conv1d 1000003 mw 7, block 128x1x1 (specialised), offset pointers: ok max_abs_err 0 rel_l2 0
// CHECK: conv1d 1 mw 33, block 256x2x1 (fallback), offset pointers: ok max_abs_err 0 rel_l2 0
// CHECK: conv2d_radius 1037x531 r 3, block 32x8x1 (tiled), aligned: ok max_abs_err 0 rel_l2 0
// CHECK: conv2d_radius 1037x531 r 8, block 32x8x1 (fallback), offset pointers: ok max_abs_err 0 rel_l2 0
// CHECK: conv2d_radius 1x1 r 16, block 32x8x2 (fallback), offset pointers: ok max_abs_err 0 rel_l2 0
// CHECK: comparisons: 720 (tiled 24, specialised 72, fallback 624)
// CHECK-NEXT: PASS
// RUN: forge-port propose %t.d/s4.cu --kernel conv2d_basic --spec %S/../Inputs/rules/specialize/conv2d_basic.json --rules=stencil-register-rows --apply -o %t.d/r1.cu
// RUN: forge-port propose %t.d/r1.cu --kernel box_r --spec %S/../Inputs/rules/specialize/box_r.json --rules=stencil-register-rows --apply -o %t.d/r2.cu
// RUN: forge-port propose %t.d/r2.cu --kernel conv2d_radius --spec %S/../Inputs/rules/specialize/conv2d_radius.json --rules=stencil-register-rows --apply -o %t.d/stencil_runtime.rows.cu
// RUN: grep -c "stencil-register-rows: 4 output rows per thread" %t.d/stencil_runtime.rows.cu | FileCheck %s --check-prefix=ROWS3
// ROWS3: 3
// RUN: %nvcc -arch=native -O3 -DFORGE_ROWS -I%S/../Inputs/rules -I%t.d %s -o %t.d/check-rows
// RUN: %t.d/check-rows | FileCheck %s --check-prefix=ROWS --implicit-check-not=MISMATCH --implicit-check-not=FAIL
// ROWS: conv2d_basic 1037x531 mw 0, block 16x16x1 (fallback), aligned, grid.y 9: ok max_abs_err 0 rel_l2 0
// ROWS: conv2d_basic 1037x531 mw 5, block 16x16x1 (rows), aligned, grid.y 9: ok max_abs_err 0 rel_l2 0
// ROWS: conv2d_basic 1037x531 mw 5, block 16x16x1 (rows), aligned, grid.y 34: ok max_abs_err 0 rel_l2 0
// ROWS: conv2d_basic 1x1 mw 33, block 16x16x2 (fallback), offset pointers, grid.y 1: ok max_abs_err 0 rel_l2 0
// ROWS: box_r 1037x531 r 2, block 32x8x1 (rows), aligned, grid.y 17: ok max_abs_err 0 rel_l2 0
// ROWS: box_r 1037x531 r 3, block 32x8x1 (fallback), offset pointers, grid.y 17: ok max_abs_err 0 rel_l2 0
// ROWS: conv1d 1000003 mw 7, block 256x1x1 (specialised), aligned, grid.y 1: ok max_abs_err 0 rel_l2 0
// ROWS: conv2d_radius 1037x531 r 3, block 32x8x1 (rows), aligned, grid.y 17: ok max_abs_err 0 rel_l2 0
// ROWS: conv2d_radius 1037x531 r 8, block 32x8x1 (fallback), offset pointers, grid.y 67: ok max_abs_err 0 rel_l2 0
// ROWS: comparisons: 1248 (rows 144, specialised 24, fallback 1080)
// ROWS-NEXT: PASS
#include "check.h"

#include <string>

namespace orig {
#include "stencil_runtime.cu"
} // namespace orig
namespace cand {
#ifdef FORGE_ROWS
#include "stencil_runtime.rows.cu"
#else
#include "stencil_runtime.specialized.cu"
#endif
} // namespace cand

namespace {

int Comparisons = 0, Tiled = 0, Specialised = 0;

#ifdef FORGE_ROWS
/// Rows per thread of the 2D candidates; the "tiled" path is theirs.
constexpr unsigned Rows = 4;
const char *const TiledName = "rows";
#else
constexpr unsigned Rows = 1;
const char *const TiledName = "tiled";
#endif

/// Where the kernels' pointers start: at cudaMalloc's (256-byte aligned)
/// pointer, or a few elements past it.
struct Offsets {
  size_t In, Mask, Out;
  const char *Name;
};
const Offsets Placements[] = {{0, 0, 0, "aligned"}, {3, 1, 5, "offset pointers"}};

/// A copy of H on the device, Pad elements past the allocation's start.
float *uploadAt(const std::vector<float> &H, size_t Pad) {
  float *D;
  CK(cudaMalloc(&D, (H.size() + Pad) * sizeof(float)));
  CK(cudaMemcpy(D + Pad, H.data(), H.size() * sizeof(float), cudaMemcpyHostToDevice));
  return D + Pad;
}

float *allocAt(size_t N, size_t Pad) {
  float *D;
  CK(cudaMalloc(&D, (N + Pad) * sizeof(float)));
  return D + Pad;
}

/// Runs Orig and Cand with the same arguments on the same launch shape,
/// Out poisoned with NaN bytes before each, and compares the N outputs: no
/// difference at all, and the same bits.
enum Path { Fallback, Specialised_, Tiled_ };

/// CandRows: the candidate's rows per thread (1 where it has none); it runs
/// on Grid and, with rows, also on Grid with grid.y divided by them.
template <typename K, typename... A>
bool same(const std::string &What, Path Taken, K Orig, K Cand, dim3 Grid, dim3 Block, float *Out,
          size_t N, unsigned CandRows, A... Args) {
  auto run = [&](K Kernel, dim3 G) {
    check::poison(Out, N);
    Kernel<<<G, Block>>>(Args...);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    return check::download(Out, N);
  };
  std::vector<float> Ref = run(Orig, Grid);
  std::vector<dim3> Grids = {Grid};
  if (CandRows > 1)
    Grids.insert(Grids.begin(), dim3(Grid.x, check::ceilDiv(Grid.y, CandRows), Grid.z));
  bool Ok = true;
  for (dim3 G : Grids) {
    std::vector<float> Got = run(Cand, G);
    ++Comparisons;
    Tiled += Taken == Tiled_;
    Specialised += Taken == Specialised_;
    std::string At = Rows > 1 ? What + ", grid.y " + std::to_string(G.y) : What;
    bool Here = check::compare(At.c_str(), Ref, Got, 0, 0);
    if (Here && std::memcmp(Ref.data(), Got.data(), N * sizeof(float)) != 0) {
      std::printf("%s: MISMATCH in the bits (a signed zero or a NaN payload)\n", At.c_str());
      Here = false;
    }
    Ok &= Here;
  }
  return Ok;
}

std::string shapeName(dim3 B) {
  return std::to_string(B.x) + "x" + std::to_string(B.y) + "x" + std::to_string(B.z);
}

bool sameShape(dim3 A, dim3 B) { return A.x == B.x && A.y == B.y && A.z == B.z; }

/// The path the rewrite takes: the spec's value on the tile's block is
/// tiled, on another block the specialised copy untiled; any other value
/// the original body. With rows, the spec's value is the rows path on any
/// block (RowsToo), the specialised copy where there are no rows.
Path pathOf(int Value, int Spec, dim3 Block, dim3 TileBlock, bool RowsToo = true) {
  if (Value != Spec)
    return Fallback;
  if (Rows > 1)
    return RowsToo ? Tiled_ : Specialised_;
  return sameShape(Block, TileBlock) ? Tiled_ : Specialised_;
}

/// "conv2d_basic 1037x531 mw 5, block 16x16x1 (tiled), aligned".
std::string name(const char *Kernel, const std::string &Size, const char *Param, int Value,
                 dim3 Block, Path Taken, const Offsets &P) {
  const std::string Names[] = {" (fallback), ", " (specialised), ",
                               std::string(" (") + TiledName + "), "};
  return std::string(Kernel) + " " + Size + " " + Param + " " + std::to_string(Value) +
         ", block " + shapeName(Block) + Names[Taken] + P.Name;
}

struct Size2D {
  int W, H;
};
const Size2D Sizes2D[] = {{1037, 531}, {77, 5}, {1, 1}};
const int Sizes1D[] = {1000003, 37, 1};
/// Mask widths: 0 (no taps), even ones (the mask off-centre by one), the
/// spec values 5 and 7, and wider.
const int Widths[] = {0, 1, 2, 3, 5, 7, 16, 33};
/// Radii: -1 (no taps), the spec values 2 and 3, and wider.
const int Radii[] = {-1, 0, 1, 2, 3, 8, 16};

/// Calls Body(Size name, placement, In, Mask, Out, pixels, W, H) for each
/// 2D size and placement, on a fresh random image (from Seed) and mask.
template <typename F> void each2D(unsigned Seed, F Body) {
  auto Mask = check::random<float>(33 * 33, Seed + 1);
  for (const Size2D &S : Sizes2D) {
    const size_t Pixels = size_t(S.W) * S.H;
    auto Img = check::random<float>(Pixels, Seed);
    for (const Offsets &P : Placements) {
      float *In = uploadAt(Img, P.In), *M = uploadAt(Mask, P.Mask), *Out = allocAt(Pixels, P.Out);
      Body(std::to_string(S.W) + "x" + std::to_string(S.H), P, In, M, Out, Pixels, S.W, S.H);
      CK(cudaFree(In - P.In));
      CK(cudaFree(M - P.Mask));
      CK(cudaFree(Out - P.Out));
    }
  }
}

dim3 grid2D(int W, int H, dim3 B) { return dim3(check::ceilDiv(W, B.x), check::ceilDiv(H, B.y)); }

/// conv2d_basic: each size, placement and mask width, on 16 x 16 (the
/// rewrite's block), 32 x 8, 16 x 8 and 16 x 16 x 2.
bool checkConv2D() {
  bool Ok = true;
  const dim3 Blocks[] = {dim3(16, 16), dim3(32, 8), dim3(16, 8), dim3(16, 16, 2)};
  each2D(1, [&](const std::string &Size, const Offsets &P, float *In, float *M, float *Out,
                size_t Pixels, int W, int H) {
    for (int Mw : Widths)
      for (dim3 B : Blocks) {
        Path T = pathOf(Mw, 5, B, Blocks[0]);
        Ok &= same(name("conv2d_basic", Size, "mw", Mw, B, T, P), T, orig::conv2d_basic,
                   cand::conv2d_basic, grid2D(W, H, B), B, Out, Pixels, Rows,
                   (const float *)In, (const float *)M, Out, W, H, Mw);
      }
  });
  return Ok;
}

/// box_r and conv2d_radius: each size, placement and radius, on 32 x 8
/// (the rewrites' block), 16 x 16, 32 x 4 and 32 x 8 x 2.
const dim3 Blocks32[] = {dim3(32, 8), dim3(16, 16), dim3(32, 4), dim3(32, 8, 2)};

bool checkBox() {
  bool Ok = true;
  each2D(3, [&](const std::string &Size, const Offsets &P, float *In, float *, float *Out,
                size_t Pixels, int W, int H) {
    for (int R : Radii)
      for (dim3 B : Blocks32) {
        Path T = pathOf(R, 2, B, Blocks32[0]);
        Ok &= same(name("box_r", Size, "r", R, B, T, P), T, orig::box_r, cand::box_r,
                   grid2D(W, H, B), B, Out, Pixels, Rows, (const float *)In, Out, W, H, R);
      }
  });
  return Ok;
}

bool checkRadius() {
  bool Ok = true;
  each2D(5, [&](const std::string &Size, const Offsets &P, float *In, float *M, float *Out,
                size_t Pixels, int W, int H) {
    for (int R : Radii)
      for (dim3 B : Blocks32) {
        Path T = pathOf(R, 3, B, Blocks32[0]);
        Ok &= same(name("conv2d_radius", Size, "r", R, B, T, P), T, orig::conv2d_radius,
                   cand::conv2d_radius, grid2D(W, H, B), B, Out, Pixels, Rows,
                   (const float *)In, (const float *)M, Out, W, H, R);
      }
  });
  return Ok;
}

/// conv1d: each length, placement and mask width, on 256 threads (the
/// rewrite's block), 128, 96 and 256 x 2.
bool checkConv1D() {
  bool Ok = true;
  auto Mask = check::random<float>(33, 8);
  const dim3 Blocks[] = {dim3(256), dim3(128), dim3(96), dim3(256, 2)};
  for (int N : Sizes1D) {
    auto X = check::random<float>(N, 7);
    for (const Offsets &P : Placements) {
      float *In = uploadAt(X, P.In), *M = uploadAt(Mask, P.Mask), *Out = allocAt(N, P.Out);
      for (int Mw : Widths)
        for (dim3 B : Blocks) {
          Path T = pathOf(Mw, 7, B, Blocks[0], /*RowsToo=*/false);
          Ok &= same(name("conv1d", std::to_string(N), "mw", Mw, B, T, P), T, orig::conv1d,
                     cand::conv1d, dim3(check::ceilDiv(N, B.x)), B, Out, size_t(N), 1u,
                     (const float *)In, (const float *)M, Out, Mw, N);
        }
      CK(cudaFree(In - P.In));
      CK(cudaFree(M - P.Mask));
      CK(cudaFree(Out - P.Out));
    }
  }
  return Ok;
}

/// conv2d_basic at 8192 x 8192 with its spec's 5 x 5 mask on 16 x 16
/// blocks: compared, then timed (check::time: a warm-up, then the median of
/// 20 launches, L2 flushed before each).
bool bench() {
  bool Ok = true;
  const int W = 8192, H = 8192;
  const size_t Pixels = size_t(W) * H;
  float *In = check::upload(check::random<float>(Pixels, 7));
  float *M = check::upload(check::random<float>(49, 8));
  float *Out;
  CK(cudaMalloc(&Out, Pixels * sizeof(float)));
  dim3 B(16, 16), G(check::ceilDiv(W, 16), check::ceilDiv(H, 16));
  dim3 CG(G.x, check::ceilDiv(G.y, Rows));
  for (int Mw : {5}) {
    Ok &= same(name("conv2d_basic", "8192x8192", "mw", Mw, B, Tiled_, Placements[0]), Tiled_,
               orig::conv2d_basic, cand::conv2d_basic, G, B, Out, Pixels, Rows,
               (const float *)In, (const float *)M, Out, W, H, Mw);
    std::string What = "conv2d_basic 8192^2 mw " + std::to_string(Mw) + ", 16x16";
    check::report(What.c_str(),
                  check::time([&] { orig::conv2d_basic<<<G, B>>>(In, M, Out, W, H, Mw); }),
                  check::time([&] { cand::conv2d_basic<<<CG, B>>>(In, M, Out, W, H, Mw); }));
  }
  CK(cudaFree(In));
  CK(cudaFree(M));
  CK(cudaFree(Out));
  return Ok;
}

} // namespace

int main(int argc, char **argv) {
  bool Ok = true;
  Ok &= checkConv2D();
  Ok &= checkBox();
  Ok &= checkConv1D();
  Ok &= checkRadius();
  int Counted = Comparisons, CountedTiled = Tiled, CountedSpecialised = Specialised;
  if (check::bench(argc, argv))
    Ok &= bench();
  std::printf("comparisons: %d (%s %d, specialised %d, fallback %d)\n", Counted, TiledName,
              CountedTiled, CountedSpecialised, Counted - CountedTiled - CountedSpecialised);
  std::printf("%s\n", Ok ? "PASS" : "FAIL");
  return Ok ? 0 : 1;
}
