// The smem-stencil-tiling rule on stencils whose radius or mask width is a
// kernel parameter (test/gpu/Inputs/rules/stencil_runtime.cu: PMPP's basic
// 2D convolution with 'r = mw / 2' on 16 x 16 blocks, a box filter over a
// clamped '-r..r' loop on 32 x 8, PMPP's 1D convolution on 256 threads, a
// 2D convolution given its radius with a '2 * r + 1' mask width and
// __restrict__ pointers on 32 x 8): each tile is declared for halos up to
// 16, and the rewrites compute bitwise what the originals compute, on
// sizes that are multiples of neither the block nor 4 (1037 x 531, 77 x 5,
// 1 x 1; 1000003, 37, 1), on aligned pointers and on pointers a few
// elements past cudaMalloc's 256-byte boundary, for mask widths 0, 1, 2,
// 3, 5, 7, 16, 17, 18, 19, 33 and radii -1, 0, 1, 3, 8, 9, 16 (halos 0 to
// 16 run the tile; a negative or wider one, 17 to 32, the original code),
// on the block each rewrite was made for and on three other shapes (the
// original code), one with a second z layer. 864 comparisons, all exact: the outputs are poisoned with NaN
// bytes before each run and compared bit for bit. Compiled with nvcc's
// default contraction: each tap is one product added to the sum, the same
// fma in both. `check --bench` times conv2d_basic at 8192 x 8192 with
// 5 x 5 and 7 x 7 masks on 16 x 16 blocks.
// REQUIRES: gpu, cuda
// RUN: rm -rf %t.d && mkdir -p %t.d
// RUN: forge-port propose %S/../Inputs/rules/stencil_runtime.cu --kernel conv2d_basic --block 16,16 --rules=smem-stencil-tiling --apply -o %t.d/s1.cu
// RUN: forge-port propose %t.d/s1.cu --kernel box_r --block 32,8 --rules=smem-stencil-tiling --apply -o %t.d/s2.cu
// RUN: forge-port propose %t.d/s2.cu --kernel conv1d --block 256 --rules=smem-stencil-tiling --apply -o %t.d/s3.cu
// RUN: forge-port propose %t.d/s3.cu --kernel conv2d_radius --block 32,8 --rules=smem-stencil-tiling --apply -o %t.d/stencil_runtime.tiled.cu
// RUN: grep -c "smem-stencil-tiling: '" %t.d/stencil_runtime.tiled.cu | FileCheck %s --check-prefix=COUNT
// COUNT: 4
// Each tile is declared for a halo of 16; a wider or negative one, or
// another block, runs the original code.
// RUN: FileCheck %s --check-prefix=TILED --input-file=%t.d/stencil_runtime.tiled.cu
// TILED-LABEL: void conv2d_basic(
// TILED: if (blockDim.x != 16 || blockDim.y != 16 || blockDim.z != 1 || (mw - 1) < 0 || (mw - 1) > 16) {
// TILED: __shared__ float img_tile[32][
// TILED-LABEL: void box_r(
// TILED: if (blockDim.x != 32 || blockDim.y != 8 || blockDim.z != 1 || (2 * r) < 0 || (2 * r) > 16) {
// TILED: __shared__ float in_tile[24][
// TILED-LABEL: void conv1d(
// TILED: if (blockDim.x != 256 || blockDim.y != 1 || blockDim.z != 1 || (mask_width - 1) < 0 || (mask_width - 1) > 16) {
// TILED: __shared__ float N_tile[272];
// TILED-LABEL: void conv2d_radius(
// TILED: if (blockDim.x != 32 || blockDim.y != 8 || blockDim.z != 1 || (2 * r) < 0 || (2 * r) > 16) {
// TILED: __shared__ float in_tile[24][
// RUN: %nvcc -arch=native -O3 -I%S/../Inputs/rules -I%t.d %s -o %t.d/check
// RUN: %t.d/check | FileCheck %s --implicit-check-not=MISMATCH --implicit-check-not=FAIL
// CHECK: conv2d_basic 1037x531 mw 0, block 16x16x1 (fallback), aligned: ok max_abs_err 0 rel_l2 0
// CHECK: conv2d_basic 1037x531 mw 17, block 16x16x1 (tiled), aligned: ok max_abs_err 0 rel_l2 0
// CHECK: conv2d_basic 1037x531 mw 17, block 16x8x1 (fallback), aligned: ok max_abs_err 0 rel_l2 0
// CHECK: conv2d_basic 1037x531 mw 19, block 16x16x1 (fallback), aligned: ok max_abs_err 0 rel_l2 0
// CHECK: conv2d_basic 1037x531 mw 17, block 16x16x1 (tiled), offset pointers: ok max_abs_err 0 rel_l2 0
// CHECK: conv2d_basic 1x1 mw 33, block 16x16x2 (fallback), offset pointers: ok max_abs_err 0 rel_l2 0
// CHECK: box_r 1037x531 r 9, block 32x8x1 (fallback), aligned: ok max_abs_err 0 rel_l2 0
// CHECK: box_r 1037x531 r 8, block 32x8x1 (tiled), offset pointers: ok max_abs_err 0 rel_l2 0
// CHECK: conv1d 1000003 mw 19, block 256x1x1 (fallback), aligned: ok max_abs_err 0 rel_l2 0
// CHECK: conv1d 1000003 mw 17, block 256x1x1 (tiled), offset pointers: ok max_abs_err 0 rel_l2 0
// CHECK: conv1d 1 mw 33, block 256x2x1 (fallback), offset pointers: ok max_abs_err 0 rel_l2 0
// CHECK: conv2d_radius 1037x531 r 9, block 32x8x1 (fallback), aligned: ok max_abs_err 0 rel_l2 0
// CHECK: conv2d_radius 1037x531 r 8, block 32x8x1 (tiled), offset pointers: ok max_abs_err 0 rel_l2 0
// CHECK: conv2d_radius 1x1 r 16, block 32x8x2 (fallback), offset pointers: ok max_abs_err 0 rel_l2 0
// CHECK: comparisons: 864 (tiled 132, fallback 732)
// CHECK-NEXT: PASS
#include "check.h"

#include <string>

namespace orig {
#include "stencil_runtime.cu"
} // namespace orig
namespace cand {
#include "stencil_runtime.tiled.cu"
} // namespace cand

namespace {

int Comparisons = 0, Tiled = 0;

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
template <typename K, typename... A>
bool same(const std::string &What, bool IsTiled, K Orig, K Cand, dim3 Grid, dim3 Block, float *Out,
          size_t N, A... Args) {
  auto run = [&](K Kernel) {
    check::poison(Out, N);
    Kernel<<<Grid, Block>>>(Args...);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    return check::download(Out, N);
  };
  std::vector<float> Ref = run(Orig), Got = run(Cand);
  ++Comparisons;
  Tiled += IsTiled;
  bool Ok = check::compare(What.c_str(), Ref, Got, 0, 0);
  if (Ok && std::memcmp(Ref.data(), Got.data(), N * sizeof(float)) != 0) {
    std::printf("%s: MISMATCH in the bits (a signed zero or a NaN payload)\n", What.c_str());
    Ok = false;
  }
  return Ok;
}

std::string shapeName(dim3 B) {
  return std::to_string(B.x) + "x" + std::to_string(B.y) + "x" + std::to_string(B.z);
}

bool sameShape(dim3 A, dim3 B) { return A.x == B.x && A.y == B.y && A.z == B.z; }

/// "conv2d_basic 1037x531 mw 17, block 16x16x1 (tiled), aligned": tiled
/// when the block is the rewrite's and the halo between 0 and 16, the
/// path the rewrite's device-side check takes.
std::string name(const char *Kernel, const std::string &Size, const char *Param, int Value,
                 dim3 Block, bool IsTiled, const Offsets &P) {
  return std::string(Kernel) + " " + Size + " " + Param + " " + std::to_string(Value) +
         ", block " + shapeName(Block) + (IsTiled ? " (tiled), " : " (fallback), ") + P.Name;
}

struct Size2D {
  int W, H;
};
const Size2D Sizes2D[] = {{1037, 531}, {77, 5}, {1, 1}};
const int Sizes1D[] = {1000003, 37, 1};
/// Mask widths: 0 (a negative halo), even ones (the mask off-centre by
/// one), up to 17 (a halo of 16, the largest the tile holds), then wider.
const int Widths[] = {0, 1, 2, 3, 5, 7, 16, 17, 18, 19, 33};
/// Radii: -1 (no taps), up to 8 (a halo of 16), then wider.
const int Radii[] = {-1, 0, 1, 3, 8, 9, 16};

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
        bool T = sameShape(B, Blocks[0]) && Mw - 1 >= 0 && Mw - 1 <= 16;
        Ok &= same(name("conv2d_basic", Size, "mw", Mw, B, T, P), T, orig::conv2d_basic,
                   cand::conv2d_basic, grid2D(W, H, B), B, Out, Pixels, (const float *)In,
                   (const float *)M, Out, W, H, Mw);
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
        bool T = sameShape(B, Blocks32[0]) && 2 * R >= 0 && 2 * R <= 16;
        Ok &= same(name("box_r", Size, "r", R, B, T, P), T, orig::box_r, cand::box_r,
                   grid2D(W, H, B), B, Out, Pixels, (const float *)In, Out, W, H, R);
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
        bool T = sameShape(B, Blocks32[0]) && 2 * R >= 0 && 2 * R <= 16;
        Ok &= same(name("conv2d_radius", Size, "r", R, B, T, P), T, orig::conv2d_radius,
                   cand::conv2d_radius, grid2D(W, H, B), B, Out, Pixels, (const float *)In,
                   (const float *)M, Out, W, H, R);
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
          bool T = sameShape(B, Blocks[0]) && Mw - 1 >= 0 && Mw - 1 <= 16;
          Ok &= same(name("conv1d", std::to_string(N), "mw", Mw, B, T, P), T, orig::conv1d,
                     cand::conv1d, dim3(check::ceilDiv(N, B.x)), B, Out, size_t(N),
                     (const float *)In, (const float *)M, Out, Mw, N);
        }
      CK(cudaFree(In - P.In));
      CK(cudaFree(M - P.Mask));
      CK(cudaFree(Out - P.Out));
    }
  }
  return Ok;
}

/// conv2d_basic at 8192 x 8192 with 5 x 5 and 7 x 7 masks on 16 x 16
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
  for (int Mw : {5, 7}) {
    Ok &= same(name("conv2d_basic", "8192x8192", "mw", Mw, B, true, Placements[0]), true,
               orig::conv2d_basic, cand::conv2d_basic, G, B, Out, Pixels, (const float *)In,
               (const float *)M, Out, W, H, Mw);
    std::string What = "conv2d_basic 8192^2 mw " + std::to_string(Mw) + ", 16x16";
    check::report(What.c_str(),
                  check::time([&] { orig::conv2d_basic<<<G, B>>>(In, M, Out, W, H, Mw); }),
                  check::time([&] { cand::conv2d_basic<<<G, B>>>(In, M, Out, W, H, Mw); }));
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
  int Counted = Comparisons, CountedTiled = Tiled;
  if (check::bench(argc, argv))
    Ok &= bench();
  std::printf("comparisons: %d (tiled %d, fallback %d)\n", Counted, CountedTiled,
              Counted - CountedTiled);
  std::printf("%s\n", Ok ? "PASS" : "FAIL");
  return Ok ? 0 : 1;
}
