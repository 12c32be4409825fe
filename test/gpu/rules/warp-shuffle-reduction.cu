// The warp-shuffle-reduction rule's rewrites compute what the originals
// compute, on the GPU: the first proposal (the tree stops at one warp)
// bitwise, the second (warp-first) within rounding for float sums and
// exactly for max and integers. Three trees: a float sum over blockDim.x
// with the output fused, a templated max whose result every thread reads,
// an integer sum over a constexpr block; and two interleaved trees (the
// stride doubling from 1, `tid % (2 * s) == 0` and a mask test), whose only
// rewrite is warp-first: a float sum over an extern array (blocks of 256
// and 1024, within rounding) and an integer max over 512 threads (exact).
// And the book's dot product (while loops, the stride declared before the
// tree), found through the kernel model: both rewrites, 32 and 300 blocks.
// REQUIRES: gpu, cuda
// RUN: rm -rf %t.d && mkdir -p %t.d
// RUN: forge-port propose %S/../Inputs/rules/reduce_tree_sum.cu --kernel reduce_tree_sum --block 256 --rules=warp-shuffle-reduction --format=json > %t.d/sum.json
// RUN: forge-port propose %S/../Inputs/rules/reduce_tree_max.cu --kernel reduce_tree_max --block 256 --rules=warp-shuffle-reduction --format=json > %t.d/max.json
// RUN: forge-port propose %S/../Inputs/rules/reduce_tree_int.cu --kernel reduce_tree_int --block 128 --rules=warp-shuffle-reduction --format=json > %t.d/int.json
// RUN: %python %S/../../Inputs/apply_proposal.py %t.d/sum.json 0 %S/../Inputs/rules/reduce_tree_sum.cu > %t.d/reduce_tree_sum.v1.cu
// RUN: %python %S/../../Inputs/apply_proposal.py %t.d/sum.json 1 %S/../Inputs/rules/reduce_tree_sum.cu > %t.d/reduce_tree_sum.v2.cu
// RUN: %python %S/../../Inputs/apply_proposal.py %t.d/max.json 0 %S/../Inputs/rules/reduce_tree_max.cu > %t.d/reduce_tree_max.v1.cu
// RUN: %python %S/../../Inputs/apply_proposal.py %t.d/max.json 1 %S/../Inputs/rules/reduce_tree_max.cu > %t.d/reduce_tree_max.v2.cu
// RUN: %python %S/../../Inputs/apply_proposal.py %t.d/int.json 0 %S/../Inputs/rules/reduce_tree_int.cu > %t.d/reduce_tree_int.v1.cu
// RUN: %python %S/../../Inputs/apply_proposal.py %t.d/int.json 1 %S/../Inputs/rules/reduce_tree_int.cu > %t.d/reduce_tree_int.v2.cu
// RUN: forge-port propose %S/../Inputs/rules/reduce_tree_while.cu --kernel reduce_tree_while --block 256 --rules=warp-shuffle-reduction --format=json > %t.d/while.json
// RUN: %python %S/../../Inputs/apply_proposal.py %t.d/while.json 0 %S/../Inputs/rules/reduce_tree_while.cu > %t.d/reduce_tree_while.v1.cu
// RUN: %python %S/../../Inputs/apply_proposal.py %t.d/while.json 1 %S/../Inputs/rules/reduce_tree_while.cu > %t.d/reduce_tree_while.v2.cu
// RUN: forge-port propose %S/../Inputs/rules/reduce_interleaved.cu --kernel reduce_interleaved --block 256 --rules=warp-shuffle-reduction --apply -o %t.d/ri1.cu
// RUN: forge-port propose %t.d/ri1.cu --kernel reduce_interleaved_max --block 512 --rules=warp-shuffle-reduction --apply -o %t.d/reduce_interleaved.v2.cu
// RUN: %nvcc -arch=native -O3 -I%S/../Inputs/rules -I%t.d %s -o %t.d/check
// RUN: %t.d/check | FileCheck %s --implicit-check-not=MISMATCH --implicit-check-not=FAIL
// CHECK: sum, tree stops at one warp: ok max_abs_err 0 rel_l2 0
// CHECK: sum, warp first: ok
// CHECK: max, tree stops at one warp: ok max_abs_err 0 rel_l2 0
// CHECK: max, warp first: ok max_abs_err 0 rel_l2 0
// CHECK: int, tree stops at one warp: ok max_abs_err 0 rel_l2 0
// CHECK: int, warp first: ok max_abs_err 0 rel_l2 0
// CHECK: interleaved sum block=256, warp first: ok
// CHECK: interleaved sum block=1024, warp first: ok
// CHECK: interleaved int max, warp first: ok max_abs_err 0 rel_l2 0
// CHECK: book dot grid=32, tree stops at one warp: ok max_abs_err 0 rel_l2 0
// CHECK: book dot grid=32, warp first: ok
// CHECK: book dot grid=300, tree stops at one warp: ok max_abs_err 0 rel_l2 0
// CHECK: book dot grid=300, warp first: ok
// CHECK: PASS
#include "check.h"

namespace orig {
#include "reduce_tree_sum.cu"
#include "reduce_tree_max.cu"
#include "reduce_tree_int.cu"
#include "reduce_interleaved.cu"
#undef THREADS_PER_BLOCK
#include "reduce_tree_while.cu"
} // namespace orig
namespace v1 {
#include "reduce_tree_sum.v1.cu"
#include "reduce_tree_max.v1.cu"
#include "reduce_tree_int.v1.cu"
#undef THREADS_PER_BLOCK
#include "reduce_tree_while.v1.cu"
} // namespace v1
namespace v2 {
#include "reduce_tree_sum.v2.cu"
#include "reduce_tree_max.v2.cu"
#include "reduce_tree_int.v2.cu"
#include "reduce_interleaved.v2.cu"
#undef THREADS_PER_BLOCK
#include "reduce_tree_while.v2.cu"
} // namespace v2

int main(int argc, char **argv) {
  bool Bench = check::bench(argc, argv);
  bool ok = true;
  // Sum: one element per thread when benchmarking (the naive tree of the
  // H200 reference table, 16M floats), a grid-stride loop otherwise.
  {
    int n = Bench ? (1 << 24) : 1000003;
    unsigned grid = Bench ? n / 256 : 300;
    auto in = check::random<float>(n, 1);
    float *dIn = check::upload(in), *dOut;
    CK(cudaMalloc(&dOut, grid * sizeof(float)));
    auto run = [&](auto kernel) {
      check::poison(dOut, grid);
      kernel<<<grid, 256>>>(dIn, dOut, n);
      CK(cudaGetLastError());
      return check::download(dOut, grid);
    };
    auto ref = run(orig::reduce_tree_sum);
    ok &= check::compare("sum, tree stops at one warp", ref, run(v1::reduce_tree_sum), 0, 0);
    ok &= check::compare("sum, warp first", ref, run(v2::reduce_tree_sum), 1e-3, 1e-6);
    if (Bench) {
      double t0 = check::time([&] { orig::reduce_tree_sum<<<grid, 256>>>(dIn, dOut, n); });
      check::report("sum 16M, tree stops at one warp", t0,
                    check::time([&] { v1::reduce_tree_sum<<<grid, 256>>>(dIn, dOut, n); }));
      check::report("sum 16M, warp first", t0,
                    check::time([&] { v2::reduce_tree_sum<<<grid, 256>>>(dIn, dOut, n); }));
    }
  }
  // Max: every thread reads the block's max.
  {
    int n = Bench ? (1 << 24) : 1000003;
    unsigned grid = check::ceilDiv(n, 256);
    auto in = check::random<float>(n, 2);
    float *dIn = check::upload(in), *dOut;
    CK(cudaMalloc(&dOut, n * sizeof(float)));
    auto run = [&](auto kernel) {
      check::poison(dOut, n);
      kernel<<<grid, 256>>>(dIn, dOut, n);
      CK(cudaGetLastError());
      return check::download(dOut, n);
    };
    auto ref = run(orig::reduce_tree_max<256>);
    ok &= check::compare("max, tree stops at one warp", ref, run(v1::reduce_tree_max<256>), 0, 0);
    ok &= check::compare("max, warp first", ref, run(v2::reduce_tree_max<256>), 0, 0);
  }
  // Integer sum.
  {
    int n = 777777;
    unsigned grid = check::ceilDiv(n, 128);
    auto in = check::random<int>(n, 3, -1000, 1000);
    int *dIn = check::upload(in), *dOut;
    CK(cudaMalloc(&dOut, grid * sizeof(int)));
    auto run = [&](auto kernel) {
      CK(cudaMemset(dOut, 0x7F, grid * sizeof(int)));
      kernel<<<grid, 128>>>(dIn, dOut, n);
      CK(cudaGetLastError());
      return check::download(dOut, grid);
    };
    auto ref = run(orig::reduce_tree_int);
    ok &= check::compare("int, tree stops at one warp", ref, run(v1::reduce_tree_int), 0, 0);
    ok &= check::compare("int, warp first", ref, run(v2::reduce_tree_int), 0, 0);
  }
  // Interleaved trees: only the warp-first rewrite. The float sum's tree
  // runs over blockDim.x (256 as proposed, and 1024).
  for (unsigned block : {256u, 1024u}) {
    unsigned n = 1000003, grid = check::ceilDiv(n, block);
    auto in = check::random<float>(n, 4);
    float *dIn = check::upload(in), *dOut;
    CK(cudaMalloc(&dOut, grid * sizeof(float)));
    auto run = [&](auto kernel) {
      check::poison(dOut, grid);
      kernel<<<grid, block, block * sizeof(float)>>>(dIn, dOut, n);
      CK(cudaGetLastError());
      return check::download(dOut, grid);
    };
    char name[96];
    std::snprintf(name, sizeof name, "interleaved sum block=%u, warp first", block);
    ok &= check::compare(name, run(orig::reduce_interleaved), run(v2::reduce_interleaved), 1e-4,
                         1e-6);
    CK(cudaFree(dIn));
    CK(cudaFree(dOut));
  }
  {
    int n = 777777;
    unsigned grid = check::ceilDiv(n, 512);
    auto in = check::random<int>(n, 5, -100000, 100000);
    int *dIn = check::upload(in), *dOut;
    CK(cudaMalloc(&dOut, grid * sizeof(int)));
    auto run = [&](auto kernel) {
      CK(cudaMemset(dOut, 0x7F, grid * sizeof(int)));
      kernel<<<grid, 512>>>(dIn, dOut, n);
      CK(cudaGetLastError());
      return check::download(dOut, grid);
    };
    ok &= check::compare("interleaved int max, warp first", run(orig::reduce_interleaved_max),
                         run(v2::reduce_interleaved_max), 0, 0);
  }
  // The book's dot product: one partial per block, 32 blocks as the book
  // launches it and 300.
  for (unsigned grid : {32u, 300u}) {
    int n = 1000003;
    auto a = check::random<float>(n, 6), b = check::random<float>(n, 7);
    float *dA = check::upload(a), *dB = check::upload(b), *dC;
    CK(cudaMalloc(&dC, grid * sizeof(float)));
    auto run = [&](auto kernel) {
      check::poison(dC, grid);
      kernel<<<grid, 256>>>(dA, dB, dC, n);
      CK(cudaGetLastError());
      return check::download(dC, grid);
    };
    auto ref = run(orig::reduce_tree_while);
    char name[96];
    std::snprintf(name, sizeof name, "book dot grid=%u, tree stops at one warp", grid);
    ok &= check::compare(name, ref, run(v1::reduce_tree_while), 0, 0);
    std::snprintf(name, sizeof name, "book dot grid=%u, warp first", grid);
    ok &= check::compare(name, ref, run(v2::reduce_tree_while), 1e-3, 1e-5);
    CK(cudaFree(dA));
    CK(cudaFree(dB));
    CK(cudaFree(dC));
  }
  std::printf("%s\n", ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
