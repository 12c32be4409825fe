// The warp-axis rule's rewrites compute bitwise what the originals compute,
// on the GPU: a matrix addition and a clamped 3x3 blur whose lanes walk the
// rows of row-major data, each rewritten (the block's threads renumbered
// along threadIdx.y) and run on the original grid for blocks 16x16, 32x8,
// 8x32, 5x7 (blockDim.y not a power of two), 64x2, 4x4x2 (a z extent) and
// 1x128, on sizes that are not multiples of the block, with pointers offset
// by one element; the whole output allocation is compared (poisoned before
// each launch, so a missed or stray element shows). `--bench` times the
// addition at 8192^2 with 16x16 blocks.
// REQUIRES: gpu, cuda
// RUN: rm -rf %t.d && mkdir -p %t.d
// RUN: forge-port propose %S/../Inputs/rules/warp_axis.cu --kernel madd --block 16,16 --rules=warp-axis --apply -o %t.d/a.cu
// RUN: forge-port propose %t.d/a.cu --kernel blur_rows --block 32,8 --rules=warp-axis --apply -o %t.d/warp_axis.v1.cu
// RUN: grep -c "forge_lin % blockDim.y" %t.d/warp_axis.v1.cu | grep -qx 2
// RUN: %nvcc -arch=native -O3 -I%S/../Inputs/rules -I%t.d %s -o %t.d/check
// RUN: %t.d/check | FileCheck %s --implicit-check-not=MISMATCH --implicit-check-not=FAIL
// CHECK: madd 1001x777 +0 16x16x1: ok max_abs_err 0 rel_l2 0
// CHECK: blur 1001x777 +0 16x16x1: ok max_abs_err 0 rel_l2 0
// CHECK: madd 1001x777 +1 5x7x1: ok max_abs_err 0 rel_l2 0
// CHECK: blur 33x2049 +1 4x4x2: ok max_abs_err 0 rel_l2 0
// CHECK: madd 33x2049 +1 1x128x1: ok max_abs_err 0 rel_l2 0
// CHECK: PASS
#include "check.h"

namespace orig {
#include "warp_axis.cu"
} // namespace orig
namespace v1 {
#include "warp_axis.v1.cu"
} // namespace v1

int main(int argc, char **argv) {
  bool ok = true;
  const dim3 Blocks[] = {{16, 16, 1}, {32, 8, 1}, {8, 32, 1}, {5, 7, 1},
                         {64, 2, 1},  {4, 4, 2},  {1, 128, 1}};
  struct Size {
    int rows, cols;
  };
  for (Size S : {Size{1001, 777}, Size{33, 2049}, Size{1, 1}})
    for (int off : {0, 1}) {
      size_t n = size_t(S.rows) * S.cols;
      auto hA = check::random<float>(n + 1, 3 + S.rows), hB = check::random<float>(n + 1, 4);
      float *dA = check::upload(hA), *dB = check::upload(hB), *dC;
      CK(cudaMalloc(&dC, (n + 1) * sizeof(float)));
      for (dim3 b : Blocks) {
        // The original grid: x over the rows, y over the columns (z: 1).
        dim3 g(check::ceilDiv(S.rows, b.x), check::ceilDiv(S.cols, b.y));
        auto run = [&](auto kernel, auto args) {
          check::poison(dC, n + 1);
          args(kernel);
          CK(cudaGetLastError());
          CK(cudaDeviceSynchronize());
          return check::download(dC, n + 1);
        };
        auto madd = [&](auto k) { k<<<g, b>>>(dA + off, dB + off, dC + off, S.rows, S.cols); };
        auto blur = [&](auto k) { k<<<g, b>>>(dA + off, dC + off, S.rows, S.cols); };
        char name[128];
        std::snprintf(name, sizeof name, "madd %dx%d +%d %ux%ux%u", S.rows, S.cols, off, b.x, b.y,
                      b.z);
        ok &= check::compare(name, run(orig::madd, madd), run(v1::madd, madd), 0, 0);
        std::snprintf(name, sizeof name, "blur %dx%d +%d %ux%ux%u", S.rows, S.cols, off, b.x, b.y,
                      b.z);
        ok &= check::compare(name, run(orig::blur_rows, blur), run(v1::blur_rows, blur), 0, 0);
      }
      CK(cudaFree(dA));
      CK(cudaFree(dB));
      CK(cudaFree(dC));
    }
  if (check::bench(argc, argv)) {
    const int m = 8192, n = 8192;
    auto h = check::random<float>(size_t(m) * n, 9);
    float *dA = check::upload(h), *dB = check::upload(h), *dC;
    CK(cudaMalloc(&dC, h.size() * sizeof(float)));
    dim3 b(16, 16), g(m / 16, n / 16);
    double t0 = check::time([&] { orig::madd<<<g, b>>>(dA, dB, dC, m, n); });
    double t1 = check::time([&] { v1::madd<<<g, b>>>(dA, dB, dC, m, n); });
    check::report("madd 8192^2 16x16", t0, t1);
    std::printf("madd rewritten: %.0f GB/s\n", 12.0 * m * n / t1 / 1e6);
  }
  std::printf("%s\n", ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
