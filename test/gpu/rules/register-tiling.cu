// The register-tiling rule's rewrites compute bitwise what the originals
// compute, on the GPU, for sizes that are not multiples of any tile, with
// the shrunken grid the proposal's spec change gives and with the original
// (larger) grid: the benchmark's SGEMM (16 x 16 blocks; two-level tiling
// with 8 x 8 outputs per thread, then 4 rows per thread) and a double
// A * B^T with alpha, beta and an early return (32 x 8 blocks; 4 x 2).
// REQUIRES: gpu, cuda
// RUN: rm -rf %t.d && mkdir -p %t.d
// RUN: forge-port propose %S/../Inputs/rules/sgemm.cu --kernel sgemm --block 16,16 --rules=register-tiling --format=json > %t.d/sgemm.json
// RUN: forge-port propose %S/../Inputs/rules/dgemm_nt.cu --kernel dgemm_nt --block 32,8 --rules=register-tiling --format=json > %t.d/dgemm.json
// RUN: %python %S/../../Inputs/apply_proposal.py %t.d/sgemm.json 0 %S/../Inputs/rules/sgemm.cu > %t.d/sgemm.tiled.cu
// RUN: %python %S/../../Inputs/apply_proposal.py %t.d/sgemm.json 1 %S/../Inputs/rules/sgemm.cu > %t.d/sgemm.rows.cu
// RUN: %python %S/../../Inputs/apply_proposal.py %t.d/dgemm.json 0 %S/../Inputs/rules/dgemm_nt.cu > %t.d/dgemm_nt.tiled.cu
// RUN: %python %S/../../Inputs/apply_proposal.py %t.d/dgemm.json 1 %S/../Inputs/rules/dgemm_nt.cu > %t.d/dgemm_nt.rows.cu
// The tile shapes the driver launches with (-D below) are the ones chosen:
// RUN: FileCheck %s --check-prefix=SHAPE --input-file=%t.d/sgemm.tiled.cu
// RUN: FileCheck %s --check-prefix=DSHAPE --input-file=%t.d/dgemm_nt.tiled.cu
// SHAPE: register-tiling: a 128 x 128 tile of C per block, 8 x 8 outputs per thread
// DSHAPE: register-tiling: a 32 x 64 tile of C per block, 4 x 2 outputs per thread
// RUN: %nvcc -arch=native -O3 -I%S/../Inputs/rules -I%t.d %s -o %t.d/check
// RUN: %t.d/check | FileCheck %s --implicit-check-not=MISMATCH --implicit-check-not=FAIL
// CHECK: sgemm, two-level, shrunken grid: ok max_abs_err 0 rel_l2 0
// CHECK: sgemm, two-level, original grid: ok max_abs_err 0 rel_l2 0
// CHECK: sgemm, 4 rows per thread, shrunken grid: ok max_abs_err 0 rel_l2 0
// CHECK: sgemm, 4 rows per thread, original grid: ok max_abs_err 0 rel_l2 0
// CHECK: dgemm_nt, two-level, shrunken grid: ok max_abs_err 0 rel_l2 0
// CHECK: dgemm_nt, two-level, original grid: ok max_abs_err 0 rel_l2 0
// CHECK: dgemm_nt, 4 rows per thread, shrunken grid: ok max_abs_err 0 rel_l2 0
// CHECK: PASS
#include "check.h"

namespace orig {
#include "sgemm.cu"
#include "dgemm_nt.cu"
} // namespace orig
namespace tiled {
#include "sgemm.tiled.cu"
#include "dgemm_nt.tiled.cu"
} // namespace tiled
namespace rows {
#include "sgemm.rows.cu"
#include "dgemm_nt.rows.cu"
} // namespace rows

int main(int argc, char **argv) {
  bool Bench = check::bench(argc, argv);
  bool ok = true;
  {
    int m = Bench ? 2048 : 333, n = Bench ? 2048 : 517, k = Bench ? 2048 : 259;
    auto a = check::random<float>(size_t(m) * k, 1), b = check::random<float>(size_t(k) * n, 2);
    float *dA = check::upload(a), *dB = check::upload(b), *dC;
    CK(cudaMalloc(&dC, size_t(m) * n * sizeof(float)));
    dim3 block(16, 16), grid(check::ceilDiv(n, 16), check::ceilDiv(m, 16));
    dim3 gridTiled(check::ceilDiv(grid.x, 8), check::ceilDiv(grid.y, 8));
    dim3 gridRows(grid.x, check::ceilDiv(grid.y, 4));
    auto run = [&](auto kernel, dim3 g) {
      check::poison(dC, size_t(m) * n);
      kernel<<<g, block>>>(dA, dB, dC, m, n, k);
      CK(cudaGetLastError());
      return check::download(dC, size_t(m) * n);
    };
    auto ref = run(orig::sgemm, grid);
    ok &= check::compare("sgemm, two-level, shrunken grid", ref, run(tiled::sgemm, gridTiled), 0, 0);
    ok &= check::compare("sgemm, two-level, original grid", ref, run(tiled::sgemm, grid), 0, 0);
    ok &= check::compare("sgemm, 4 rows per thread, shrunken grid", ref, run(rows::sgemm, gridRows), 0, 0);
    ok &= check::compare("sgemm, 4 rows per thread, original grid", ref, run(rows::sgemm, grid), 0, 0);
    if (Bench) {
      double t0 = check::time([&] { orig::sgemm<<<grid, block>>>(dA, dB, dC, m, n, k); });
      check::report("sgemm 2048^3, two-level", t0,
                    check::time([&] { tiled::sgemm<<<gridTiled, block>>>(dA, dB, dC, m, n, k); }));
      check::report("sgemm 2048^3, 4 rows per thread", t0,
                    check::time([&] { rows::sgemm<<<gridRows, block>>>(dA, dB, dC, m, n, k); }));
    }
  }
  {
    int m = 200, n = 301, k = 123;
    double alpha = 1.5, beta = -0.25;
    auto a = check::random<double>(size_t(m) * k, 3), bt = check::random<double>(size_t(n) * k, 4);
    auto c0 = check::random<double>(size_t(m) * n, 5);
    double *dA = check::upload(a), *dB = check::upload(bt), *dC = check::upload(c0);
    dim3 block(32, 8), grid(check::ceilDiv(n, 32), check::ceilDiv(m, 8));
    dim3 gridTiled(check::ceilDiv(grid.x, 2), check::ceilDiv(grid.y, 4));
    dim3 gridRows(grid.x, check::ceilDiv(grid.y, 4));
    auto run = [&](auto kernel, dim3 g) {
      CK(cudaMemcpy(dC, c0.data(), c0.size() * sizeof(double), cudaMemcpyHostToDevice));
      kernel<<<g, block>>>(m, n, k, alpha, dA, dB, beta, dC);
      CK(cudaGetLastError());
      return check::download(dC, size_t(m) * n);
    };
    auto ref = run(orig::dgemm_nt, grid);
    ok &= check::compare("dgemm_nt, two-level, shrunken grid", ref, run(tiled::dgemm_nt, gridTiled), 0, 0);
    ok &= check::compare("dgemm_nt, two-level, original grid", ref, run(tiled::dgemm_nt, grid), 0, 0);
    ok &= check::compare("dgemm_nt, 4 rows per thread, shrunken grid", ref, run(rows::dgemm_nt, gridRows), 0, 0);
  }
  std::printf("%s\n", ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
