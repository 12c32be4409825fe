// The block-order rule's rewrites compute bitwise what the originals compute,
// on the GPU: the matrix addition and the clamped 3x3 blur of warp-axis's
// inputs (x over the rows of row-major data), rewritten by block-order alone
// (v1) and by warp-axis then block-order (v2), run for blocks 16x16, 32x8,
// 5x7 and 1x128 on grids that cover the data exactly, with one block along y,
// and with spare blocks along both axes (the renumbering is a permutation of
// whatever grid is launched), on sizes that are not multiples of the block,
// with pointers offset by one element; the whole output allocation is
// compared (poisoned before each launch). `--bench` times the addition at
// 8192^2 with 16x16 blocks: the original, warp-axis alone, block-order alone
// and both.
// REQUIRES: gpu, cuda
// RUN: rm -rf %t.d && mkdir -p %t.d
// RUN: forge-port propose %S/../Inputs/rules/warp_axis.cu --kernel madd --block 16,16 --rules=block-order --apply -o %t.d/a.cu
// RUN: forge-port propose %t.d/a.cu --kernel blur_rows --block 16,16 --rules=block-order --apply -o %t.d/block_order.v1.cu
// RUN: forge-port propose %S/../Inputs/rules/warp_axis.cu --kernel madd --block 16,16 --rules=warp-axis --apply -o %t.d/b.cu
// RUN: forge-port propose %t.d/b.cu --kernel blur_rows --block 16,16 --rules=warp-axis --apply -o %t.d/block_order.wa.cu
// RUN: forge-port propose %t.d/block_order.wa.cu --kernel madd --block 16,16 --rules=block-order --apply -o %t.d/c.cu
// RUN: forge-port propose %t.d/c.cu --kernel blur_rows --block 16,16 --rules=block-order --apply -o %t.d/block_order.v2.cu
// RUN: grep -c "forge_blk % gridDim.y" %t.d/block_order.v2.cu | grep -qx 4
// RUN: %nvcc -arch=native -O3 -I%S/../Inputs/rules -I%t.d %s -o %t.d/check
// RUN: %t.d/check | FileCheck %s --implicit-check-not=MISMATCH --implicit-check-not=FAIL
// CHECK: madd v1 1001x777 +0 16x16 grid 63x49: ok max_abs_err 0 rel_l2 0
// CHECK: blur v2 1001x777 +0 16x16 grid 63x49: ok max_abs_err 0 rel_l2 0
// CHECK: madd v2 33x2049 +1 1x128 grid 35x18: ok max_abs_err 0 rel_l2 0
// CHECK: PASS
#include "check.h"

namespace orig {
#include "warp_axis.cu"
} // namespace orig
namespace v1 {
#include "block_order.v1.cu"
} // namespace v1
namespace wa {
#include "block_order.wa.cu"
} // namespace wa
namespace v2 {
#include "block_order.v2.cu"
} // namespace v2

int main(int argc, char **argv) {
  bool ok = true;
  const dim3 Blocks[] = {{16, 16, 1}, {32, 8, 1}, {5, 7, 1}, {1, 128, 1}};
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
        // x over the rows, y over the columns: the exact grid, spare blocks
        // along both axes, and all the columns in one block row where a
        // block along y covers them.
        dim3 exact(check::ceilDiv(S.rows, b.x), check::ceilDiv(S.cols, b.y));
        std::vector<dim3> Grids = {exact, dim3(exact.x + 2, exact.y + 1)};
        if (exact.y == 1 || b.y >= unsigned(S.cols))
          Grids.push_back(dim3(exact.x, 1));
        for (dim3 g : Grids) {
          auto run = [&](auto kernel, auto args) {
            check::poison(dC, n + 1);
            args(kernel);
            CK(cudaGetLastError());
            CK(cudaDeviceSynchronize());
            return check::download(dC, n + 1);
          };
          auto madd = [&](auto k) { k<<<g, b>>>(dA + off, dB + off, dC + off, S.rows, S.cols); };
          auto blur = [&](auto k) { k<<<g, b>>>(dA + off, dC + off, S.rows, S.cols); };
          char name[160];
          auto label = [&](const char *k, const char *v) {
            std::snprintf(name, sizeof name, "%s %s %dx%d +%d %ux%u grid %ux%u", k, v, S.rows,
                          S.cols, off, b.x, b.y, g.x, g.y);
            return name;
          };
          auto refM = run(orig::madd, madd), refB = run(orig::blur_rows, blur);
          ok &= check::compare(label("madd", "v1"), refM, run(v1::madd, madd), 0, 0);
          ok &= check::compare(label("madd", "v2"), refM, run(v2::madd, madd), 0, 0);
          ok &= check::compare(label("blur", "v1"), refB, run(v1::blur_rows, blur), 0, 0);
          ok &= check::compare(label("blur", "v2"), refB, run(v2::blur_rows, blur), 0, 0);
        }
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
    double tw = check::time([&] { wa::madd<<<g, b>>>(dA, dB, dC, m, n); });
    double t1 = check::time([&] { v1::madd<<<g, b>>>(dA, dB, dC, m, n); });
    double t2 = check::time([&] { v2::madd<<<g, b>>>(dA, dB, dC, m, n); });
    check::report("madd 8192^2 16x16, warp-axis", t0, tw);
    check::report("madd 8192^2 16x16, block-order", t0, t1);
    check::report("madd 8192^2 16x16, warp-axis + block-order", t0, t2);
    std::printf("madd: original %.0f GB/s, warp-axis %.0f GB/s, block-order %.0f GB/s, both %.0f GB/s\n",
                12.0 * m * n / t0 / 1e6, 12.0 * m * n / tw / 1e6, 12.0 * m * n / t1 / 1e6,
                12.0 * m * n / t2 / 1e6);
  }
  std::printf("%s\n", ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
