// The transpose-tile rule's rewrites compute bitwise what the originals
// compute, on the GPU, for matrix sizes that are not multiples of the tile
// or of the block: the float transpose (rewritten for 32 x 8 blocks) and a
// scaled double one with swapped roles and early exits (16 x 16 blocks),
// and one whose positions are written with a constant tile width of 16 (the
// tiled body for 16 x 16 blocks, the original body for others).
// The tiled kernels are correct for any block shape and any grid, so each
// runs with the original launch, the spec's one-tile-per-block grid, other
// block shapes (32 x 32, 64 x 4, 128 x 1, 8 x 8) and a single block.
// REQUIRES: gpu, cuda
// RUN: rm -rf %t.d && mkdir -p %t.d
// RUN: forge-port propose %S/../Inputs/rules/transpose.cu --kernel transpose --block 32,8 --rules=transpose-tile --apply -o %t.d/transpose.tiled.cu
// RUN: forge-port propose %t.d/transpose.tiled.cu --kernel transpose_scaled --block 16,16 --rules=transpose-tile --apply -o %t.d/two.tiled.cu
// RUN: forge-port propose %t.d/two.tiled.cu --kernel transpose16 --block 16,16 --rules=transpose-tile --apply -o %t.d/both.tiled.cu
// RUN: %nvcc -arch=native -O3 -I%S/../Inputs/rules -I%t.d %s -o %t.d/check
// RUN: %t.d/check | FileCheck %s --implicit-check-not=MISMATCH --implicit-check-not=FAIL
// CHECK: transpose 32x8 original grid: ok max_abs_err 0 rel_l2 0
// CHECK: transpose 32x8 one tile per block: ok max_abs_err 0 rel_l2 0
// CHECK: transpose 32x32: ok max_abs_err 0 rel_l2 0
// CHECK: transpose 64x4: ok max_abs_err 0 rel_l2 0
// CHECK: transpose 128x1: ok max_abs_err 0 rel_l2 0
// CHECK: transpose 8x8: ok max_abs_err 0 rel_l2 0
// CHECK: transpose one block: ok max_abs_err 0 rel_l2 0
// CHECK: transpose_scaled 16x16 original grid: ok max_abs_err 0 rel_l2 0
// CHECK: transpose_scaled 16x16 one tile per block: ok max_abs_err 0 rel_l2 0
// CHECK: transpose_scaled 32x8: ok max_abs_err 0 rel_l2 0
// CHECK: transpose_scaled one block: ok max_abs_err 0 rel_l2 0
// CHECK: transpose16 16x16 (tiled): ok max_abs_err 0 rel_l2 0
// CHECK: transpose16 32x8 (original body): ok max_abs_err 0 rel_l2 0
// CHECK: PASS
#include "check.h"

namespace orig {
#include "transpose.cu"
} // namespace orig
namespace cand {
#include "both.tiled.cu"
} // namespace cand

int main(int argc, char **argv) {
  bool Bench = check::bench(argc, argv);
  bool ok = true;
  // rows x cols, neither a multiple of 32 nor of the block.
  int rows = Bench ? 8192 : 1031, cols = Bench ? 8192 : 777;
  size_t elems = size_t(rows) * cols;
  {
    auto a = check::random<float>(elems, 1);
    float *dIn = check::upload(a), *dOut;
    CK(cudaMalloc(&dOut, elems * sizeof(float)));
    auto run = [&](auto kernel, dim3 grid, dim3 block) {
      check::poison(dOut, elems);
      kernel<<<grid, block>>>(dIn, dOut, rows, cols);
      CK(cudaGetLastError());
      return check::download(dOut, elems);
    };
    dim3 block(32, 8), grid(check::ceilDiv(cols, 32), check::ceilDiv(rows, 8));
    auto ref = run(orig::transpose, grid, block);
    dim3 tiles(check::ceilDiv(cols, 32), check::ceilDiv(rows, 32));
    ok &= check::compare("transpose 32x8 original grid", ref, run(cand::transpose, grid, block), 0, 0);
    ok &= check::compare("transpose 32x8 one tile per block", ref, run(cand::transpose, tiles, block), 0, 0);
    ok &= check::compare("transpose 32x32", ref, run(cand::transpose, tiles, dim3(32, 32)), 0, 0);
    ok &= check::compare("transpose 64x4", ref,
                         run(cand::transpose, dim3(check::ceilDiv(cols, 64), check::ceilDiv(rows, 4)), dim3(64, 4)), 0, 0);
    ok &= check::compare("transpose 128x1", ref, run(cand::transpose, tiles, dim3(128, 1)), 0, 0);
    ok &= check::compare("transpose 8x8", ref,
                         run(cand::transpose, dim3(check::ceilDiv(cols, 8), check::ceilDiv(rows, 8)), dim3(8, 8)), 0, 0);
    ok &= check::compare("transpose one block", ref, run(cand::transpose, dim3(1, 1), block), 0, 0);
    if (Bench)
      check::report("transpose 8192^2 f32",
                    check::time([&] { orig::transpose<<<grid, block>>>(dIn, dOut, rows, cols); }),
                    check::time([&] { cand::transpose<<<tiles, block>>>(dIn, dOut, rows, cols); }));
    CK(cudaFree(dIn));
    CK(cudaFree(dOut));
  }
  {
    // a is n x m (read along j), b is m x n.
    int n = rows, m = cols;
    auto a = check::random<double>(elems, 2);
    double *dA = check::upload(a), *dB;
    CK(cudaMalloc(&dB, elems * sizeof(double)));
    auto run = [&](auto kernel, dim3 grid, dim3 block) {
      check::poison(dB, elems);
      kernel<<<grid, block>>>(dA, dB, 0.75, n, m);
      CK(cudaGetLastError());
      return check::download(dB, elems);
    };
    dim3 block(16, 16), grid(check::ceilDiv(n, 16), check::ceilDiv(m, 16));
    auto ref = run(orig::transpose_scaled, grid, block);
    dim3 tiles(check::ceilDiv(n, 32), check::ceilDiv(m, 32));
    ok &= check::compare("transpose_scaled 16x16 original grid", ref, run(cand::transpose_scaled, grid, block), 0, 0);
    ok &= check::compare("transpose_scaled 16x16 one tile per block", ref, run(cand::transpose_scaled, tiles, block), 0, 0);
    ok &= check::compare("transpose_scaled 32x8", ref, run(cand::transpose_scaled, tiles, dim3(32, 8)), 0, 0);
    ok &= check::compare("transpose_scaled one block", ref, run(cand::transpose_scaled, dim3(1, 1), block), 0, 0);
    if (Bench)
      check::report("transpose_scaled 8192^2 f64",
                    check::time([&] { orig::transpose_scaled<<<grid, block>>>(dA, dB, 0.75, n, m); }),
                    check::time([&] { cand::transpose_scaled<<<tiles, block>>>(dA, dB, 0.75, n, m); }));
    CK(cudaFree(dA));
    CK(cudaFree(dB));
  }
  {
    auto a = check::random<float>(elems, 3);
    float *dIn = check::upload(a), *dOut;
    CK(cudaMalloc(&dOut, elems * sizeof(float)));
    auto run = [&](auto kernel, dim3 grid, dim3 block) {
      check::poison(dOut, elems);
      kernel<<<grid, block>>>(dIn, dOut, rows, cols);
      CK(cudaGetLastError());
      return check::download(dOut, elems);
    };
    dim3 block(16, 16), grid(check::ceilDiv(cols, 16), check::ceilDiv(rows, 16));
    auto ref = run(orig::transpose16, grid, block);
    ok &= check::compare("transpose16 16x16 (tiled)", ref, run(cand::transpose16, grid, block), 0, 0);
    // 32 x 8 blocks with the same grid: the original covers other elements
    // (and leaves some unwritten); the rewrite must do the same.
    auto ref2 = run(orig::transpose16, grid, dim3(32, 8));
    ok &= check::compare("transpose16 32x8 (original body)", ref2,
                         run(cand::transpose16, grid, dim3(32, 8)), 0, 0);
    CK(cudaFree(dIn));
    CK(cudaFree(dOut));
  }
  std::printf("%s\n", ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
