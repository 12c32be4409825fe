// The smem-stencil-tiling rule's rewrites compute bitwise what the
// originals compute, on the GPU, for image sizes that are not multiples of
// the block: the benchmark's 5x5 convolution (16 x 16 blocks; and its
// second proposal, 4 rows per thread, on the capped and the original grid
// and on another block shape), one written with early exits and a
// __constant__ filter (32 x 8 blocks), the 1D stencil (256 threads), and
// the model-based spellings of stencils_model.cu, each on its tiled block
// and on another shape (the fallback), 1D ones also on offset pointers.
// The convolution's filter buffer is a coefficient buffer: both proposals
// load its 25 values once per thread into registers. Compiled with
// -fmad=false, as stencil-register-rows.cu is: with the filter's indices
// constants after unrolling, nvcc may contract other multiply-adds than in
// the original, and the test is about the operations and their order.
// REQUIRES: gpu, cuda
// RUN: rm -rf %t.d && mkdir -p %t.d
// RUN: forge-port propose %S/../Inputs/rules/conv2d_5x5.cu --kernel conv2d_5x5 --block 16,16 --rules=smem-stencil-tiling --apply -o %t.d/conv2d_5x5.tiled.cu
// RUN: forge-port propose %S/../Inputs/rules/conv2d_continue.cu --kernel conv2d_continue --block 32,8 --rules=smem-stencil-tiling --apply -o %t.d/conv2d_continue.tiled.cu
// RUN: forge-port propose %S/../Inputs/rules/stencil1d.cu --kernel stencil1d --block 256 --rules=smem-stencil-tiling --apply -o %t.d/stencil1d.tiled.cu
// The second proposal for the benchmark's convolution: 4 rows per thread.
// RUN: forge-port propose %S/../Inputs/rules/conv2d_5x5.cu --spec %S/../../passes/smem-stencil-tiling/Inputs/conv2d_5x5.json --rules=smem-stencil-tiling --format=json > %t.d/conv.json
// RUN: %python %S/../../Inputs/apply_proposal.py %t.d/conv.json 1 %S/../Inputs/rules/conv2d_5x5.cu > %t.d/conv2d_5x5.rows.cu
// The model-based spellings, one kernel after the other into one file.
// RUN: forge-port propose %S/../Inputs/rules/stencils_model.cu --kernel blur_minmax --block 16,16 --rules=smem-stencil-tiling --apply -o %t.d/m1.cu
// RUN: forge-port propose %t.d/m1.cu --kernel blur_ifelse --block 32,8 --rules=smem-stencil-tiling --apply -o %t.d/m2.cu
// RUN: forge-port propose %t.d/m2.cu --kernel laplace5 --block 32,8 --rules=smem-stencil-tiling --apply -o %t.d/m3.cu
// RUN: forge-port propose %t.d/m3.cu --kernel st1d_r3 --block 256 --rules=smem-stencil-tiling --apply -o %t.d/m4.cu
// RUN: forge-port propose %t.d/m4.cu --kernel heat3d --block 32,4,4 --rules=smem-stencil-tiling --apply -o %t.d/m5.cu
// RUN: forge-port propose %t.d/m5.cu --kernel box1d --block 128 --rules=smem-stencil-tiling --apply -o %t.d/m6.cu
// RUN: forge-port propose %t.d/m6.cu --kernel hblur --block 32,8 --rules=smem-stencil-tiling --apply -o %t.d/m7.cu
// RUN: forge-port propose %t.d/m7.cu --kernel batched --block 32,8 --rules=smem-stencil-tiling --apply -o %t.d/m8.cu
// RUN: forge-port propose %t.d/m8.cu --kernel plane3d --block 32,8 --rules=smem-stencil-tiling --apply -o %t.d/stencils_model.tiled.cu
// RUN: grep -c "smem-stencil-tiling: '" %t.d/stencils_model.tiled.cu | FileCheck %s --check-prefix=COUNT
// COUNT: 9
// RUN: grep -c "float filt_c\[25\];" %t.d/conv2d_5x5.tiled.cu %t.d/conv2d_5x5.rows.cu | FileCheck %s --check-prefix=COEFS
// COEFS: conv2d_5x5.tiled.cu:1
// COEFS: conv2d_5x5.rows.cu:1
// RUN: %nvcc -arch=native -O3 -fmad=false -I%S/../Inputs/rules -I%t.d %s -o %t.d/check
// RUN: %t.d/check | FileCheck %s --implicit-check-not=MISMATCH --implicit-check-not=FAIL
// CHECK: conv2d_5x5: ok max_abs_err 0 rel_l2 0
// CHECK: conv2d_continue: ok max_abs_err 0 rel_l2 0
// CHECK: stencil1d: ok max_abs_err 0 rel_l2 0
// CHECK: conv2d_5x5 rows, 16x16, capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: conv2d_5x5 rows, 16x16, original grid: ok max_abs_err 0 rel_l2 0
// CHECK: conv2d_5x5 rows, 32x8 fallback: ok max_abs_err 0 rel_l2 0
// CHECK: blur_minmax 16x16: ok max_abs_err 0 rel_l2 0
// CHECK: blur_minmax 32x4 fallback: ok max_abs_err 0 rel_l2 0
// CHECK: blur_ifelse 32x8: ok max_abs_err 0 rel_l2 0
// CHECK: blur_ifelse 16x16 fallback: ok max_abs_err 0 rel_l2 0
// CHECK: laplace5 32x8: ok max_abs_err 0 rel_l2 0
// CHECK: laplace5 8x8 fallback: ok max_abs_err 0 rel_l2 0
// CHECK: st1d_r3 256: ok max_abs_err 0 rel_l2 0
// CHECK: st1d_r3 256, offset pointers: ok max_abs_err 0 rel_l2 0
// CHECK: st1d_r3 96 fallback: ok max_abs_err 0 rel_l2 0
// CHECK: heat3d 32x4x4: ok max_abs_err 0 rel_l2 0
// CHECK: heat3d 16x8x2 fallback: ok max_abs_err 0 rel_l2 0
// CHECK: plane3d 32x8: ok max_abs_err 0 rel_l2 0
// CHECK: plane3d 16x4 fallback: ok max_abs_err 0 rel_l2 0
// CHECK: box1d<4> 128: ok max_abs_err 0 rel_l2 0
// CHECK: box1d<4> 128, offset pointers: ok max_abs_err 0 rel_l2 0
// CHECK: box1d<4> 64 fallback: ok max_abs_err 0 rel_l2 0
// CHECK: hblur 32x8: ok max_abs_err 0 rel_l2 0
// CHECK: hblur 64x2 fallback: ok max_abs_err 0 rel_l2 0
// CHECK: batched 32x8: ok max_abs_err 0 rel_l2 0
// CHECK: batched 16x16 fallback: ok max_abs_err 0 rel_l2 0
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
namespace rows {
#include "conv2d_5x5.rows.cu"
} // namespace rows
namespace morig {
#include "stencils_model.cu"
} // namespace morig
namespace mcand {
#include "stencils_model.tiled.cu"
} // namespace mcand

/// Runs Orig and Cand with the same arguments on the same launch shapes and
/// compares the outputs bitwise (Out poisoned with NaN before each run).
template <typename T, typename K, typename... A>
bool same(const char *what, K orig, K cand, dim3 grid, dim3 block, T *out, size_t n, A... args) {
  auto run = [&](K kernel) {
    check::poison(out, n);
    kernel<<<grid, block>>>(args...);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    return check::download(out, n);
  };
  auto ref = run(orig);
  return check::compare(what, ref, run(cand), 0, 0);
}

/// The model-based spellings, each on its tiled block and on another shape
/// (the fallback), sizes that are multiples of neither.
bool modelStencils() {
  bool ok = true;
  const int w = 777, h = 501;
  const size_t pixels = size_t(w) * h;
  auto img = check::random<float>(pixels + 8, 11);
  float *dIn = check::upload(img), *dOut;
  CK(cudaMalloc(&dOut, (pixels + 8) * sizeof(float)));
  auto grid2 = [&](int bx, int by) { return dim3(check::ceilDiv(w, bx), check::ceilDiv(h, by)); };
  ok &= same("blur_minmax 16x16", morig::blur_minmax, mcand::blur_minmax, grid2(16, 16), dim3(16, 16),
             dOut, pixels, (const float *)dIn, dOut, w, h);
  ok &= same("blur_minmax 32x4 fallback", morig::blur_minmax, mcand::blur_minmax, grid2(32, 4),
             dim3(32, 4), dOut, pixels, (const float *)dIn, dOut, w, h);
  ok &= same("blur_ifelse 32x8", morig::blur_ifelse, mcand::blur_ifelse, grid2(32, 8), dim3(32, 8),
             dOut, pixels, (const float *)dIn, dOut, w, h);
  ok &= same("blur_ifelse 16x16 fallback", morig::blur_ifelse, mcand::blur_ifelse, grid2(16, 16),
             dim3(16, 16), dOut, pixels, (const float *)dIn, dOut, w, h);
  {
    auto u = check::random<double>(pixels, 12);
    double *dU = check::upload(u), *dLap;
    CK(cudaMalloc(&dLap, pixels * sizeof(double)));
    ok &= same("laplace5 32x8", morig::laplace5, mcand::laplace5, grid2(32, 8), dim3(32, 8), dLap,
               pixels, (const double *)dU, dLap, w, h);
    ok &= same("laplace5 8x8 fallback", morig::laplace5, mcand::laplace5, grid2(8, 8), dim3(8, 8),
               dLap, pixels, (const double *)dU, dLap, w, h);
    CK(cudaFree(dU));
    CK(cudaFree(dLap));
  }
  {
    const int n = 100003;
    ok &= same("st1d_r3 256", morig::st1d_r3, mcand::st1d_r3, dim3(check::ceilDiv(n, 256)),
               dim3(256), dOut, size_t(n), (const float *)dIn, dOut, n);
    // Both pointers one element in: misaligned for anything wider than a float.
    ok &= same("st1d_r3 256, offset pointers", morig::st1d_r3, mcand::st1d_r3,
               dim3(check::ceilDiv(n, 256)), dim3(256), dOut, size_t(n) + 1,
               (const float *)dIn + 1, dOut + 1, n);
    ok &= same("st1d_r3 96 fallback", morig::st1d_r3, mcand::st1d_r3, dim3(check::ceilDiv(n, 96)),
               dim3(96), dOut, size_t(n), (const float *)dIn, dOut, n);
  }
  {
    const int nx = 67, ny = 37, nz = 29;
    const size_t cells = size_t(nx) * ny * nz;
    auto vol = check::random<float>(cells, 13);
    float *dA = check::upload(vol), *dB;
    CK(cudaMalloc(&dB, cells * sizeof(float)));
    auto grid3 = [&](int bx, int by, int bz) {
      return dim3(check::ceilDiv(nx, bx), check::ceilDiv(ny, by), check::ceilDiv(nz, bz));
    };
    ok &= same("heat3d 32x4x4", morig::heat3d, mcand::heat3d, grid3(32, 4, 4), dim3(32, 4, 4), dB,
               cells, (const float *)dA, dB, nx, ny, nz);
    ok &= same("heat3d 16x8x2 fallback", morig::heat3d, mcand::heat3d, grid3(16, 8, 2),
               dim3(16, 8, 2), dB, cells, (const float *)dA, dB, nx, ny, nz);
    // One plane per block along z.
    ok &= same("plane3d 32x8", morig::plane3d, mcand::plane3d, grid3(32, 8, 1), dim3(32, 8), dB,
               cells, (const float *)dA, dB, nx, ny, nz);
    ok &= same("plane3d 16x4 fallback", morig::plane3d, mcand::plane3d, grid3(16, 4, 1),
               dim3(16, 4), dB, cells, (const float *)dA, dB, nx, ny, nz);
    CK(cudaFree(dA));
    CK(cudaFree(dB));
  }
  {
    const int n = 100003;
    ok &= same("box1d<4> 128", morig::box1d<4>, mcand::box1d<4>, dim3(check::ceilDiv(n, 128)),
               dim3(128), dOut, size_t(n), (const float *)dIn, dOut, n);
    ok &= same("box1d<4> 128, offset pointers", morig::box1d<4>, mcand::box1d<4>,
               dim3(check::ceilDiv(n, 128)), dim3(128), dOut, size_t(n) + 3,
               (const float *)dIn + 3, dOut + 3, n);
    ok &= same("box1d<4> 64 fallback", morig::box1d<4>, mcand::box1d<4>, dim3(check::ceilDiv(n, 64)),
               dim3(64), dOut, size_t(n), (const float *)dIn, dOut, n);
  }
  ok &= same("hblur 32x8", morig::hblur, mcand::hblur, grid2(32, 8), dim3(32, 8), dOut, pixels,
             (const float *)dIn, dOut, w, h);
  ok &= same("hblur 64x2 fallback", morig::hblur, mcand::hblur, grid2(64, 2), dim3(64, 2), dOut,
             pixels, (const float *)dIn, dOut, w, h);
  {
    const int bw = 131, bh = 45, batch = 5;
    const size_t cells = size_t(bw) * bh * batch;
    auto in = check::random<float>(cells, 14);
    float *dI = check::upload(in), *dO;
    CK(cudaMalloc(&dO, cells * sizeof(float)));
    dim3 g(check::ceilDiv(bw, 32), check::ceilDiv(bh, 8), batch);
    ok &= same("batched 32x8", morig::batched, mcand::batched, g, dim3(32, 8), dO, cells,
               (const float *)dI, dO, bw, bh);
    dim3 g2(check::ceilDiv(bw, 16), check::ceilDiv(bh, 16), batch);
    ok &= same("batched 16x16 fallback", morig::batched, mcand::batched, g2, dim3(16, 16), dO, cells,
               (const float *)dI, dO, bw, bh);
    CK(cudaFree(dI));
    CK(cudaFree(dO));
  }
  CK(cudaFree(dIn));
  CK(cudaFree(dOut));
  return ok;
}

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
  {
    // 4 rows per thread: the capped grid (grid.y divided by 4), the
    // original grid (its extra rows fail the kernel's bounds), and another
    // block shape (the fallback, also 4 rows per thread).
    auto run = [&](auto kernel, dim3 grid, dim3 block) {
      check::poison(dOut, pixels);
      kernel<<<grid, block>>>(dIn, dFilt, dOut, h, w);
      CK(cudaGetLastError());
      return check::download(dOut, pixels);
    };
    dim3 b16(16, 16), b32(32, 8);
    dim3 orig16(check::ceilDiv(w, 16), check::ceilDiv(h, 16));
    dim3 capped16(check::ceilDiv(w, 16), check::ceilDiv(check::ceilDiv(h, 16), 4));
    dim3 capped32(check::ceilDiv(w, 32), check::ceilDiv(check::ceilDiv(h, 8), 4));
    auto ref = run(orig::conv2d_5x5, orig16, b16);
    ok &= check::compare("conv2d_5x5 rows, 16x16, capped grid", ref,
                         run(rows::conv2d_5x5, capped16, b16), 0, 0);
    ok &= check::compare("conv2d_5x5 rows, 16x16, original grid", ref,
                         run(rows::conv2d_5x5, orig16, b16), 0, 0);
    ok &= check::compare("conv2d_5x5 rows, 32x8 fallback", ref,
                         run(rows::conv2d_5x5, capped32, b32), 0, 0);
    if (Bench)
      check::report("conv2d_5x5 4096^2, 4 rows per thread",
                    check::time([&] { orig::conv2d_5x5<<<orig16, b16>>>(dIn, dFilt, dOut, h, w); }),
                    check::time([&] { rows::conv2d_5x5<<<capped16, b16>>>(dIn, dFilt, dOut, h, w); }));
  }
  ok &= modelStencils();
  std::printf("%s\n", ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
