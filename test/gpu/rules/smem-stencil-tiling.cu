// The smem-stencil-tiling rule's rewrites compute bitwise what the
// originals compute, on the GPU, for image sizes that are not multiples of
// the block: the benchmark's 5x5 convolution (16 x 16 blocks), one written
// with early exits and a __constant__ filter (32 x 8 blocks) and the 1D
// stencil (256 threads).
// REQUIRES: gpu, cuda
// RUN: rm -rf %t.d && mkdir -p %t.d
// RUN: forge-port propose %S/../Inputs/rules/conv2d_5x5.cu --kernel conv2d_5x5 --block 16,16 --rules=smem-stencil-tiling --apply -o %t.d/conv2d_5x5.tiled.cu
// RUN: forge-port propose %S/../Inputs/rules/conv2d_continue.cu --kernel conv2d_continue --block 32,8 --rules=smem-stencil-tiling --apply -o %t.d/conv2d_continue.tiled.cu
// RUN: forge-port propose %S/../Inputs/rules/stencil1d.cu --kernel stencil1d --block 256 --rules=smem-stencil-tiling --apply -o %t.d/stencil1d.tiled.cu
// RUN: %nvcc -arch=native -O3 -I%S/../Inputs/rules -I%t.d %s -o %t.d/check
// RUN: %t.d/check | FileCheck %s --implicit-check-not=MISMATCH --implicit-check-not=FAIL
// CHECK: conv2d_5x5: ok max_abs_err 0 rel_l2 0
// CHECK: conv2d_continue: ok max_abs_err 0 rel_l2 0
// CHECK: stencil1d: ok max_abs_err 0 rel_l2 0
// CHECK: PASS
#include "check.h"

namespace orig {
#include "conv2d_5x5.cu"
#include "conv2d_continue.cu"
#include "stencil1d.cu"
} // namespace orig
namespace cand {
#include "conv2d_5x5.tiled.cu"
#include "conv2d_continue.tiled.cu"
#include "stencil1d.tiled.cu"
} // namespace cand

int main(int argc, char **argv) {
  bool Bench = check::bench(argc, argv);
  bool ok = true;
  int h = Bench ? 4096 : 1000, w = Bench ? 4096 : 777;
  size_t pixels = size_t(h) * w;
  auto img = check::random<float>(pixels, 1);
  auto filt = check::random<float>(25, 2);
  float *dIn = check::upload(img), *dFilt = check::upload(filt), *dOut;
  CK(cudaMalloc(&dOut, pixels * sizeof(float)));
  {
    dim3 block(16, 16), grid(check::ceilDiv(w, 16), check::ceilDiv(h, 16));
    auto run = [&](auto kernel) {
      check::poison(dOut, pixels);
      kernel<<<grid, block>>>(dIn, dFilt, dOut, h, w);
      CK(cudaGetLastError());
      return check::download(dOut, pixels);
    };
    ok &= check::compare("conv2d_5x5", run(orig::conv2d_5x5), run(cand::conv2d_5x5), 0, 0);
    if (Bench)
      check::report("conv2d_5x5 4096^2",
                    check::time([&] { orig::conv2d_5x5<<<grid, block>>>(dIn, dFilt, dOut, h, w); }),
                    check::time([&] { cand::conv2d_5x5<<<grid, block>>>(dIn, dFilt, dOut, h, w); }));
  }
  {
    CK(cudaMemcpyToSymbol(orig::c_filter, filt.data(), 25 * sizeof(float)));
    CK(cudaMemcpyToSymbol(cand::c_filter, filt.data(), 25 * sizeof(float)));
    dim3 block(32, 8), grid(check::ceilDiv(w, 32), check::ceilDiv(h, 8));
    auto run = [&](auto kernel) {
      check::poison(dOut, pixels);
      kernel<<<grid, block>>>(w, h, dIn, dOut);
      CK(cudaGetLastError());
      return check::download(dOut, pixels);
    };
    ok &= check::compare("conv2d_continue", run(orig::conv2d_continue), run(cand::conv2d_continue),
                         0, 0);
    if (Bench)
      check::report("conv2d_continue 4096^2",
                    check::time([&] { orig::conv2d_continue<<<grid, block>>>(w, h, dIn, dOut); }),
                    check::time([&] { cand::conv2d_continue<<<grid, block>>>(w, h, dIn, dOut); }));
  }
  {
    int n = Bench ? (1 << 26) : 1000003;
    auto x = check::random<float>(n, 3);
    auto wt = check::random<float>(7, 4);
    float *dX = check::upload(x), *dW = check::upload(wt), *dY;
    CK(cudaMalloc(&dY, size_t(n) * sizeof(float)));
    unsigned grid = check::ceilDiv(n, 256);
    auto run = [&](auto kernel) {
      check::poison(dY, n);
      kernel<<<grid, 256>>>(dX, dW, dY, n);
      CK(cudaGetLastError());
      return check::download(dY, n);
    };
    ok &= check::compare("stencil1d", run(orig::stencil1d), run(cand::stencil1d), 0, 0);
    if (Bench)
      check::report("stencil1d 64M",
                    check::time([&] { orig::stencil1d<<<grid, 256>>>(dX, dW, dY, n); }),
                    check::time([&] { cand::stencil1d<<<grid, 256>>>(dX, dW, dY, n); }));
  }
  std::printf("%s\n", ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
