// The register-tiling rule's rewrites compute bitwise what the originals
// compute, on the GPU, for sizes that are not multiples of any tile, with
// the shrunken grid the proposal's spec change gives and with the original
// (larger) grid:
// - the benchmark's SGEMM (16 x 16 blocks): block-tiled 128 x 128 and
//   64 x 64 (256 threads, double-buffered shared tiles) on the float4 path
//   (1000^3, and 333 x 516 x 260 with partial tiles), on the scalar path
//   (129 x 257 x 67: k and n not multiples of 4; 1000^3 with A and B one
//   float off 16-byte alignment), then two-level tiling with 8 x 8 outputs
//   per thread, then 4 rows per thread; with a 4096^3 spec (two waves of
//   128 x 256 tiles) also block-tiled 128 x 256 (8 x 16 per thread, one
//   block an SM), at the same odd and misaligned sizes;
// - the benchmark's batched SGEMM (blockIdx.z batches, operands through
//   locals, a third guard term), block-tiled, batches of 129^2 (scalar)
//   and 200^2 (float4), the grid's z larger than the batch count;
// - a textbook GEMM with separate bounds checks around the loop and the
//   store, block-tiled;
// - a double A * B^T with alpha, beta and an early return (32 x 8 blocks):
//   block-tiled 128 x 64 (8 x 4 per thread) and 64 x 64 (k = 123: scalar;
//   k = 124: double2), two-level
//   (4 x 2), 4 rows per thread.
// REQUIRES: gpu, cuda
// RUN: rm -rf %t.d && mkdir -p %t.d
// RUN: forge-port propose %S/../Inputs/rules/sgemm.cu --kernel sgemm --block 16,16 --rules=register-tiling --format=json > %t.d/sgemm.json
// RUN: forge-port propose %S/../Inputs/rules/sgemm.cu --spec %S/../Inputs/rules/sgemm_wide.json --rules=register-tiling --format=json > %t.d/wide.json
// RUN: forge-port propose %S/../Inputs/rules/dgemm_nt.cu --kernel dgemm_nt --block 32,8 --rules=register-tiling --format=json > %t.d/dgemm.json
// RUN: forge-port propose %S/../Inputs/rules/sgemm_batched.cu --kernel sgemm_batched --block 16,16 --rules=register-tiling --format=json > %t.d/batched.json
// RUN: forge-port propose %S/../Inputs/rules/sgemm_pmpp.cu --kernel sgemm_pmpp --block 16,16 --rules=register-tiling --format=json > %t.d/pmpp.json
// RUN: %python %S/../../Inputs/apply_proposal.py %t.d/sgemm.json 0 %S/../Inputs/rules/sgemm.cu > %t.d/sgemm.bt128.cu
// RUN: %python %S/../../Inputs/apply_proposal.py %t.d/sgemm.json 1 %S/../Inputs/rules/sgemm.cu > %t.d/sgemm.bt64.cu
// RUN: %python %S/../../Inputs/apply_proposal.py %t.d/sgemm.json 2 %S/../Inputs/rules/sgemm.cu > %t.d/sgemm.tiled.cu
// RUN: %python %S/../../Inputs/apply_proposal.py %t.d/sgemm.json 3 %S/../Inputs/rules/sgemm.cu > %t.d/sgemm.rows.cu
// RUN: %python %S/../../Inputs/apply_proposal.py %t.d/wide.json 2 %S/../Inputs/rules/sgemm.cu > %t.d/sgemm.wide.cu
// RUN: %python %S/../../Inputs/apply_proposal.py %t.d/dgemm.json 0 %S/../Inputs/rules/dgemm_nt.cu > %t.d/dgemm_nt.bt128.cu
// RUN: %python %S/../../Inputs/apply_proposal.py %t.d/dgemm.json 1 %S/../Inputs/rules/dgemm_nt.cu > %t.d/dgemm_nt.bt64.cu
// RUN: %python %S/../../Inputs/apply_proposal.py %t.d/dgemm.json 2 %S/../Inputs/rules/dgemm_nt.cu > %t.d/dgemm_nt.tiled.cu
// RUN: %python %S/../../Inputs/apply_proposal.py %t.d/dgemm.json 3 %S/../Inputs/rules/dgemm_nt.cu > %t.d/dgemm_nt.rows.cu
// RUN: %python %S/../../Inputs/apply_proposal.py %t.d/batched.json 0 %S/../Inputs/rules/sgemm_batched.cu > %t.d/sgemm_batched.bt128.cu
// RUN: %python %S/../../Inputs/apply_proposal.py %t.d/pmpp.json 0 %S/../Inputs/rules/sgemm_pmpp.cu > %t.d/sgemm_pmpp.bt128.cu
// The tile shapes the driver launches with (grids below) are the ones chosen:
// RUN: FileCheck %s --check-prefix=BT128 --input-file=%t.d/sgemm.bt128.cu
// RUN: FileCheck %s --check-prefix=BT64 --input-file=%t.d/sgemm.bt64.cu
// RUN: FileCheck %s --check-prefix=SHAPE --input-file=%t.d/sgemm.tiled.cu
// RUN: FileCheck %s --check-prefix=WIDE --input-file=%t.d/sgemm.wide.cu
// RUN: FileCheck %s --check-prefix=DBT128 --input-file=%t.d/dgemm_nt.bt128.cu
// RUN: FileCheck %s --check-prefix=DBT64 --input-file=%t.d/dgemm_nt.bt64.cu
// RUN: FileCheck %s --check-prefix=DSHAPE --input-file=%t.d/dgemm_nt.tiled.cu
// RUN: FileCheck %s --check-prefix=BT128 --input-file=%t.d/sgemm_batched.bt128.cu
// RUN: FileCheck %s --check-prefix=BT128 --input-file=%t.d/sgemm_pmpp.bt128.cu
// BT128: register-tiling: a 128 x 128 tile of C per block of 256 threads, 8 x 8 outputs per thread;
// BT64: register-tiling: a 64 x 64 tile of C per block of 256 threads, 4 x 4 outputs per thread;
// WIDE: __launch_bounds__(256, 1)
// WIDE: register-tiling: a 128 x 256 tile of C per block of 256 threads, 8 x 16 outputs per thread;
// DBT128: register-tiling: a 128 x 64 tile of C per block of 256 threads, 8 x 4 outputs per thread;
// DBT64: register-tiling: a 64 x 64 tile of C per block of 256 threads, 4 x 4 outputs per thread;
// DBT64: read as double2
// SHAPE: register-tiling: a 128 x 128 tile of C per block, 8 x 8 outputs per thread
// DSHAPE: register-tiling: a 32 x 64 tile of C per block, 4 x 2 outputs per thread
// RUN: %nvcc -arch=native -O3 -I%S/../Inputs/rules -I%t.d %s -o %t.d/check
// RUN: %t.d/check | FileCheck %s --implicit-check-not=MISMATCH --implicit-check-not=FAIL
// CHECK: sgemm 129x257x67 +0, block-tiled 128, shrunken grid: ok max_abs_err 0 rel_l2 0
// CHECK: sgemm 129x257x67 +0, block-tiled 128, original grid: ok max_abs_err 0 rel_l2 0
// CHECK: sgemm 129x257x67 +0, block-tiled 64, shrunken grid: ok max_abs_err 0 rel_l2 0
// CHECK: sgemm 129x257x67 +0, block-tiled 64, original grid: ok max_abs_err 0 rel_l2 0
// CHECK: sgemm 129x257x67 +0, two-level, shrunken grid: ok max_abs_err 0 rel_l2 0
// CHECK: sgemm 129x257x67 +0, two-level, original grid: ok max_abs_err 0 rel_l2 0
// CHECK: sgemm 129x257x67 +0, 4 rows per thread, shrunken grid: ok max_abs_err 0 rel_l2 0
// CHECK: sgemm 129x257x67 +0, 4 rows per thread, original grid: ok max_abs_err 0 rel_l2 0
// CHECK: sgemm 129x257x67 +0, block-tiled 128x256, shrunken grid: ok max_abs_err 0 rel_l2 0
// CHECK: sgemm 129x257x67 +0, block-tiled 128x256, original grid: ok max_abs_err 0 rel_l2 0
// CHECK: sgemm 333x516x260 +0, block-tiled 128, shrunken grid: ok max_abs_err 0 rel_l2 0
// CHECK: sgemm 333x516x260 +0, block-tiled 64, shrunken grid: ok max_abs_err 0 rel_l2 0
// CHECK: sgemm 333x516x260 +0, block-tiled 128x256, shrunken grid: ok max_abs_err 0 rel_l2 0
// CHECK: sgemm 1000x1000x1000 +0, block-tiled 128, shrunken grid: ok max_abs_err 0 rel_l2 0
// CHECK: sgemm 1000x1000x1000 +0, block-tiled 64, shrunken grid: ok max_abs_err 0 rel_l2 0
// CHECK: sgemm 1000x1000x1000 +0, block-tiled 128x256, shrunken grid: ok max_abs_err 0 rel_l2 0
// CHECK: sgemm 1000x1000x1000 +1, block-tiled 128, shrunken grid: ok max_abs_err 0 rel_l2 0
// CHECK: sgemm 1000x1000x1000 +1, block-tiled 128, original grid: ok max_abs_err 0 rel_l2 0
// CHECK: sgemm 1000x1000x1000 +1, block-tiled 64, shrunken grid: ok max_abs_err 0 rel_l2 0
// CHECK: sgemm 1000x1000x1000 +1, block-tiled 128x256, shrunken grid: ok max_abs_err 0 rel_l2 0
// CHECK: sgemm 1000x1000x1000 +1, block-tiled 128x256, original grid: ok max_abs_err 0 rel_l2 0
// CHECK: sgemm_pmpp 129x257x67, block-tiled 128, shrunken grid: ok max_abs_err 0 rel_l2 0
// CHECK: sgemm_pmpp 129x257x67, block-tiled 128, original grid: ok max_abs_err 0 rel_l2 0
// CHECK: sgemm_pmpp 1000x1000x1000, block-tiled 128, shrunken grid: ok max_abs_err 0 rel_l2 0
// CHECK: sgemm_batched 129 x 3, block-tiled 128, shrunken grid: ok max_abs_err 0 rel_l2 0
// CHECK: sgemm_batched 129 x 3, block-tiled 128, original grid: ok max_abs_err 0 rel_l2 0
// CHECK: sgemm_batched 200 x 2, block-tiled 128, shrunken grid: ok max_abs_err 0 rel_l2 0
// CHECK: sgemm_batched 200 x 2, block-tiled 128, original grid: ok max_abs_err 0 rel_l2 0
// CHECK: dgemm_nt 200x301x123, block-tiled 128x64, shrunken grid: ok max_abs_err 0 rel_l2 0
// CHECK: dgemm_nt 200x301x123, block-tiled 128x64, original grid: ok max_abs_err 0 rel_l2 0
// CHECK: dgemm_nt 200x301x123, block-tiled 64, shrunken grid: ok max_abs_err 0 rel_l2 0
// CHECK: dgemm_nt 200x301x123, block-tiled 64, original grid: ok max_abs_err 0 rel_l2 0
// CHECK: dgemm_nt 200x301x123, two-level, shrunken grid: ok max_abs_err 0 rel_l2 0
// CHECK: dgemm_nt 200x301x123, two-level, original grid: ok max_abs_err 0 rel_l2 0
// CHECK: dgemm_nt 200x301x123, 4 rows per thread, shrunken grid: ok max_abs_err 0 rel_l2 0
// CHECK: dgemm_nt 200x300x124, block-tiled 128x64, shrunken grid: ok max_abs_err 0 rel_l2 0
// CHECK: dgemm_nt 200x300x124, block-tiled 128x64, original grid: ok max_abs_err 0 rel_l2 0
// CHECK: dgemm_nt 200x300x124, block-tiled 64, shrunken grid: ok max_abs_err 0 rel_l2 0
// CHECK: dgemm_nt 200x300x124, block-tiled 64, original grid: ok max_abs_err 0 rel_l2 0
// CHECK: PASS
#include "check.h"
#include <string>

namespace orig {
#include "sgemm.cu"
#include "dgemm_nt.cu"
#include "sgemm_batched.cu"
#include "sgemm_pmpp.cu"
} // namespace orig
namespace bt128 {
#include "sgemm.bt128.cu"
#include "sgemm_batched.bt128.cu"
#include "sgemm_pmpp.bt128.cu"
#include "dgemm_nt.bt128.cu"
} // namespace bt128
namespace bt64 {
#include "sgemm.bt64.cu"
#include "dgemm_nt.bt64.cu"
} // namespace bt64
namespace tiled {
#include "sgemm.tiled.cu"
#include "dgemm_nt.tiled.cu"
} // namespace tiled
namespace rows {
#include "sgemm.rows.cu"
#include "dgemm_nt.rows.cu"
} // namespace rows
namespace wide {
#include "sgemm.wide.cu"
} // namespace wide

using Gemm = void (*)(const float *, const float *, float *, int, int, int);
struct Variant {
  const char *what;
  Gemm kernel;
  unsigned fx, fy; // the spec change's division of grid.x and grid.y
  bool originalGrid; // also run with the original grid
};

// C = A * B (m x k times k x n) with 16 x 16 blocks, A and B `off` floats
// past cudaMalloc's alignment; every variant against the original, bitwise.
bool products(const std::string &label, Gemm original, int m, int n, int k, int off,
              const std::vector<Variant> &variants, bool bench = false) {
  bool ok = true;
  auto a = check::random<float>(size_t(m) * k + off, 1), b = check::random<float>(size_t(k) * n + off, 2);
  float *dA = check::upload(a), *dB = check::upload(b), *dC;
  CK(cudaMalloc(&dC, size_t(m) * n * sizeof(float)));
  dim3 block(16, 16), grid(check::ceilDiv(n, 16), check::ceilDiv(m, 16));
  auto run = [&](Gemm kernel, dim3 g) {
    check::poison(dC, size_t(m) * n);
    kernel<<<g, block>>>(dA + off, dB + off, dC, m, n, k);
    CK(cudaGetLastError());
    return check::download(dC, size_t(m) * n);
  };
  auto ref = run(original, grid);
  for (const Variant &v : variants) {
    dim3 shrunk(check::ceilDiv(grid.x, v.fx), check::ceilDiv(grid.y, v.fy));
    std::string base = label + ", " + v.what;
    ok &= check::compare((base + ", shrunken grid").c_str(), ref, run(v.kernel, shrunk), 0, 0);
    if (v.originalGrid)
      ok &= check::compare((base + ", original grid").c_str(), ref, run(v.kernel, grid), 0, 0);
    if (bench) {
      double t0 = check::time([&] { original<<<grid, block>>>(dA + off, dB + off, dC, m, n, k); });
      check::report((label + ", " + v.what).c_str(), t0,
                    check::time([&] { v.kernel<<<shrunk, block>>>(dA + off, dB + off, dC, m, n, k); }));
    }
  }
  CK(cudaFree(dA));
  CK(cudaFree(dB));
  CK(cudaFree(dC));
  return ok;
}

int main(int argc, char **argv) {
  bool Bench = check::bench(argc, argv);
  bool ok = true;
  std::vector<Variant> all = {{"block-tiled 128", bt128::sgemm, 8, 8, true},
                              {"block-tiled 64", bt64::sgemm, 4, 4, true},
                              {"two-level", tiled::sgemm, 8, 8, true},
                              {"4 rows per thread", rows::sgemm, 1, 4, true},
                              {"block-tiled 128x256", wide::sgemm, 16, 8, true}};
  std::vector<Variant> blocked = {{"block-tiled 128", bt128::sgemm, 8, 8, false},
                                  {"block-tiled 64", bt64::sgemm, 4, 4, false},
                                  {"block-tiled 128x256", wide::sgemm, 16, 8, false}};
  std::vector<Variant> misaligned = {{"block-tiled 128", bt128::sgemm, 8, 8, true},
                                     {"block-tiled 64", bt64::sgemm, 4, 4, false},
                                     {"block-tiled 128x256", wide::sgemm, 16, 8, true}};
  // k and n not multiples of 4: the scalar path.
  ok &= products("sgemm 129x257x67 +0", orig::sgemm, 129, 257, 67, 0, all);
  // The float4 path with partial tiles in m, n and k.
  ok &= products("sgemm 333x516x260 +0", orig::sgemm, 333, 516, 260, 0, blocked);
  ok &= products("sgemm 1000x1000x1000 +0", orig::sgemm, 1000, 1000, 1000, 0, blocked);
  // Bases one float off 16-byte alignment: the scalar path.
  ok &= products("sgemm 1000x1000x1000 +1", orig::sgemm, 1000, 1000, 1000, 1, misaligned);
  ok &= products("sgemm_pmpp 129x257x67", orig::sgemm_pmpp, 129, 257, 67, 0,
                 {{"block-tiled 128", bt128::sgemm_pmpp, 8, 8, true}});
  ok &= products("sgemm_pmpp 1000x1000x1000", orig::sgemm_pmpp, 1000, 1000, 1000, 0,
                 {{"block-tiled 128", bt128::sgemm_pmpp, 8, 8, false}});
  if (Bench) {
    products("sgemm 2048^3", orig::sgemm, 2048, 2048, 2048, 0, blocked, true);
    products("sgemm 4096^3", orig::sgemm, 4096, 4096, 4096, 0, {blocked[0], blocked[2]}, true);
  }
  // Batched: blockIdx.z is the batch, the guard has `b < batch`; the
  // original grid has two batches too many.
  struct Batched { int n, batch; };
  for (Batched sz : {Batched{129, 3}, Batched{200, 2}}) {
    const int n = sz.n, batch = sz.batch;
    size_t e = size_t(n) * n * batch;
    auto a = check::random<float>(e, 6), b = check::random<float>(e, 7);
    float *dA = check::upload(a), *dB = check::upload(b), *dC;
    CK(cudaMalloc(&dC, e * sizeof(float)));
    dim3 block(16, 16), grid(check::ceilDiv(n, 16), check::ceilDiv(n, 16), batch + 2);
    dim3 shrunk(check::ceilDiv(grid.x, 8), check::ceilDiv(grid.y, 8), batch);
    auto run = [&](auto kernel, dim3 g) {
      check::poison(dC, e);
      kernel<<<g, block>>>(dA, dB, dC, n, batch);
      CK(cudaGetLastError());
      return check::download(dC, e);
    };
    auto ref = run(orig::sgemm_batched, grid);
    std::string base = "sgemm_batched " + std::to_string(n) + " x " + std::to_string(batch) + ", block-tiled 128";
    ok &= check::compare((base + ", shrunken grid").c_str(), ref, run(bt128::sgemm_batched, shrunk), 0, 0);
    ok &= check::compare((base + ", original grid").c_str(), ref, run(bt128::sgemm_batched, grid), 0, 0);
    CK(cudaFree(dA));
    CK(cudaFree(dB));
    CK(cudaFree(dC));
  }
  // Double A * B^T, alpha, beta, early return; 32 x 8 blocks.
  struct Sizes { int m, n, k; };
  for (Sizes sz : {Sizes{200, 301, 123}, Sizes{200, 300, 124}}) {
    const int m = sz.m, n = sz.n, k = sz.k;
    double alpha = 1.5, beta = -0.25;
    auto a = check::random<double>(size_t(m) * k, 3), bt = check::random<double>(size_t(n) * k, 4);
    auto c0 = check::random<double>(size_t(m) * n, 5);
    double *dA = check::upload(a), *dB = check::upload(bt), *dC = check::upload(c0);
    dim3 block(32, 8), grid(check::ceilDiv(n, 32), check::ceilDiv(m, 8));
    auto run = [&](auto kernel, dim3 g) {
      CK(cudaMemcpy(dC, c0.data(), c0.size() * sizeof(double), cudaMemcpyHostToDevice));
      kernel<<<g, block>>>(m, n, k, alpha, dA, dB, beta, dC);
      CK(cudaGetLastError());
      return check::download(dC, size_t(m) * n);
    };
    auto ref = run(orig::dgemm_nt, grid);
    std::string base = "dgemm_nt " + std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k);
    dim3 g128(check::ceilDiv(grid.x, 2), check::ceilDiv(grid.y, 16));
    ok &= check::compare((base + ", block-tiled 128x64, shrunken grid").c_str(), ref, run(bt128::dgemm_nt, g128), 0, 0);
    ok &= check::compare((base + ", block-tiled 128x64, original grid").c_str(), ref, run(bt128::dgemm_nt, grid), 0, 0);
    dim3 g64(check::ceilDiv(grid.x, 2), check::ceilDiv(grid.y, 8));
    ok &= check::compare((base + ", block-tiled 64, shrunken grid").c_str(), ref, run(bt64::dgemm_nt, g64), 0, 0);
    ok &= check::compare((base + ", block-tiled 64, original grid").c_str(), ref, run(bt64::dgemm_nt, grid), 0, 0);
    if (k == 123) {
      dim3 gridTiled(check::ceilDiv(grid.x, 2), check::ceilDiv(grid.y, 4));
      dim3 gridRows(grid.x, check::ceilDiv(grid.y, 4));
      ok &= check::compare((base + ", two-level, shrunken grid").c_str(), ref, run(tiled::dgemm_nt, gridTiled), 0, 0);
      ok &= check::compare((base + ", two-level, original grid").c_str(), ref, run(tiled::dgemm_nt, grid), 0, 0);
      ok &= check::compare((base + ", 4 rows per thread, shrunken grid").c_str(), ref, run(rows::dgemm_nt, gridRows), 0, 0);
    }
    CK(cudaFree(dA));
    CK(cudaFree(dB));
    CK(cudaFree(dC));
  }
  std::printf("%s\n", ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
