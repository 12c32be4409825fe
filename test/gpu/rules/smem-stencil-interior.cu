// smem-stencil-tiling on stencils whose offsets come from loops inside one
// guard on the thread's position (test/gpu/Inputs/rules/stencil_interior.cu:
// a 27-point box over the interior of a volume with an early return, a 5x5
// mean over the interior of an image inside an if). The tile is loaded
// where the guard, with the offsets at their extremes, says elements are
// read; the rewrite must compute bitwise what the original computes on
// sizes that are not multiples of the block (and volumes thinner than the
// halo), on the tiled block and on another block shape (the fallback), and
// leave the border it never writes as it was. Compiled with -fmad=false, as
// smem-stencil-tiling.cu is. With --bench: times at 512^3 and 8192^2.
// REQUIRES: gpu, cuda
// RUN: rm -rf %t.d && mkdir -p %t.d
// RUN: forge-port propose %S/../Inputs/rules/stencil_interior.cu --kernel box27 --block 32,4,4 --rules=smem-stencil-tiling --apply -o %t.d/i1.cu
// RUN: forge-port propose %t.d/i1.cu --kernel mean5 --block 32,8 --rules=smem-stencil-tiling --apply -o %t.d/stencil_interior.tiled.cu
// RUN: grep -c "smem-stencil-tiling: '" %t.d/stencil_interior.tiled.cu | FileCheck %s --check-prefix=COUNT
// COUNT: 2
// RUN: %nvcc -arch=native -O3 -fmad=false -I%S/../Inputs/rules -I%t.d %s -o %t.d/check
// RUN: %t.d/check | FileCheck %s --implicit-check-not=MISMATCH --implicit-check-not=FAIL
// CHECK: box27 67x45x33 block 32x4x4: ok max_abs_err 0 rel_l2 0
// CHECK: box27 3x3x3 block 8x8x8: ok max_abs_err 0 rel_l2 0
// CHECK: mean5 1001x333 block 32x8: ok max_abs_err 0 rel_l2 0
// CHECK: mean5 5x5 block 16x16: ok max_abs_err 0 rel_l2 0
// CHECK: PASS
#include "check.h"

namespace orig {
#include "stencil_interior.cu"
} // namespace orig
namespace v1 {
#include "stencil_interior.tiled.cu"
} // namespace v1

int main(int argc, char **argv) {
  bool Bench = check::bench(argc, argv);
  bool ok = true;
  struct Vol {
    int nx, ny, nz;
  };
  const dim3 Blocks3[] = {dim3(32, 4, 4), dim3(8, 8, 8), dim3(16, 8, 2)};
  for (Vol V : {Vol{67, 45, 33}, Vol{3, 3, 3}, Vol{130, 7, 2}, Vol{33, 33, 9}}) {
    size_t n = size_t(V.nx) * V.ny * V.nz;
    auto h = check::random<float>(n, 3 + V.nx);
    float *din = check::upload(h), *dout;
    CK(cudaMalloc(&dout, n * sizeof(float)));
    for (dim3 b : Blocks3) {
      dim3 g(check::ceilDiv(V.nx, b.x), check::ceilDiv(V.ny, b.y), check::ceilDiv(V.nz, b.z));
      check::poison(dout, n);
      orig::box27<<<g, b>>>(din, dout, V.nx, V.ny, V.nz);
      CK(cudaDeviceSynchronize());
      auto ref = check::download(dout, n);
      check::poison(dout, n);
      v1::box27<<<g, b>>>(din, dout, V.nx, V.ny, V.nz);
      CK(cudaGetLastError());
      CK(cudaDeviceSynchronize());
      auto got = check::download(dout, n);
      char what[96];
      std::snprintf(what, sizeof what, "box27 %dx%dx%d block %ux%ux%u", V.nx, V.ny, V.nz, b.x, b.y, b.z);
      ok &= check::compare(what, ref, got, 0, 0);
    }
    CK(cudaFree(din));
    CK(cudaFree(dout));
  }
  const dim3 Blocks2[] = {dim3(32, 8), dim3(16, 16), dim3(64, 4)};
  struct Img {
    int w, h;
  };
  for (Img I : {Img{1001, 333}, Img{5, 5}, Img{4, 100}, Img{129, 3}}) {
    size_t n = size_t(I.w) * I.h;
    auto h = check::random<float>(n, 5 + I.w);
    float *din = check::upload(h), *dout;
    CK(cudaMalloc(&dout, n * sizeof(float)));
    for (dim3 b : Blocks2) {
      dim3 g(check::ceilDiv(I.w, b.x), check::ceilDiv(I.h, b.y));
      check::poison(dout, n);
      orig::mean5<<<g, b>>>(din, dout, I.w, I.h);
      CK(cudaDeviceSynchronize());
      auto ref = check::download(dout, n);
      check::poison(dout, n);
      v1::mean5<<<g, b>>>(din, dout, I.w, I.h);
      CK(cudaGetLastError());
      CK(cudaDeviceSynchronize());
      auto got = check::download(dout, n);
      char what[96];
      std::snprintf(what, sizeof what, "mean5 %dx%d block %ux%u", I.w, I.h, b.x, b.y);
      ok &= check::compare(what, ref, got, 0, 0);
    }
    CK(cudaFree(din));
    CK(cudaFree(dout));
  }
  if (Bench) {
    {
      const int N = 512;
      size_t n = size_t(N) * N * N;
      auto h = check::random<float>(n, 9);
      float *din = check::upload(h), *dout;
      CK(cudaMalloc(&dout, n * sizeof(float)));
      dim3 b(32, 4, 4), g(N / 32, N / 4, N / 4);
      double t0 = check::time([&] { orig::box27<<<g, b>>>(din, dout, N, N, N); });
      double t1 = check::time([&] { v1::box27<<<g, b>>>(din, dout, N, N, N); });
      check::report("box27 512^3 block 32x4x4", t0, t1);
      CK(cudaFree(din));
      CK(cudaFree(dout));
    }
    {
      const int W = 8192;
      size_t n = size_t(W) * W;
      auto h = check::random<float>(n, 10);
      float *din = check::upload(h), *dout;
      CK(cudaMalloc(&dout, n * sizeof(float)));
      dim3 b(32, 8), g(W / 32, W / 8);
      double t0 = check::time([&] { orig::mean5<<<g, b>>>(din, dout, W, W); });
      double t1 = check::time([&] { v1::mean5<<<g, b>>>(din, dout, W, W); });
      check::report("mean5 8192^2 block 32x8", t0, t1);
      CK(cudaFree(din));
      CK(cudaFree(dout));
    }
  }
  std::printf("%s\n", ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
