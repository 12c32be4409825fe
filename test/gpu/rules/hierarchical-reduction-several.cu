// The hierarchical-reduction rule's rewrites of kernels with several atomic
// reductions (one partial per target, one atomic per block and target)
// compute what the originals compute, on the GPU: the original grid and the
// capped grids the SpecChange allows, down to one block; blocks that are
// multiples of 32 (the shuffle path, up to 1024 threads), blocks that are
// not (the fallback of one atomic per thread and target), 2D blocks; odd
// sizes; inputs and targets at odd offsets, with a sentinel element around
// the targets that must stay untouched. Every input is chosen so that the
// float sums are exact in any order, so everything compares exactly.
// REQUIRES: gpu, cuda
// RUN: rm -rf %t.d && mkdir -p %t.d
// RUN: forge-port propose %S/../Inputs/rules/atomic_minmax.cu --kernel atomic_minmax --block 256 --rules=hierarchical-reduction --apply -o %t.d/atomic_minmax.v1.cu
// RUN: forge-port propose %S/../Inputs/rules/atomic_moments.cu --kernel atomic_moments --block 256 --rules=hierarchical-reduction --apply -o %t.d/atomic_moments.v1.cu
// RUN: forge-port propose %S/../Inputs/rules/atomic_count_sum.cu --kernel atomic_count_sum --block 256 --rules=hierarchical-reduction --apply -o %t.d/atomic_count_sum.v1.cu
// RUN: forge-port propose %S/../Inputs/rules/atomic_stats.cu --kernel atomic_stats --block 256 --rules=hierarchical-reduction --apply -o %t.d/atomic_stats.v1.cu
// The rewrites are what this test is about: each has one partial per target.
// RUN: grep -c 'partial_lo = min(partial_lo' %t.d/atomic_minmax.v1.cu
// RUN: grep -c 'partial_s1 +=' %t.d/atomic_moments.v1.cu
// RUN: grep -c 'partial_total +=' %t.d/atomic_count_sum.v1.cu
// RUN: grep -c 'partial_st2 = max(partial_st2' %t.d/atomic_stats.v1.cu
// RUN: %nvcc -arch=native -O3 -I%S/../Inputs/rules -I%t.d %s -o %t.d/check
// RUN: %t.d/check | FileCheck %s --implicit-check-not=MISMATCH --implicit-check-not=FAIL
// CHECK: minmax, block 256x1, grid 3907: ok max_abs_err 0 rel_l2 0
// CHECK: minmax, block 256x1, grid 1: ok max_abs_err 0 rel_l2 0
// CHECK: minmax, block 100x1, grid 2112: ok max_abs_err 0 rel_l2 0
// CHECK: minmax, block 32x4, grid 7: ok max_abs_err 0 rel_l2 0
// CHECK: minmax, block 10x3, grid 1: ok max_abs_err 0 rel_l2 0
// CHECK: moments, block 256x1, grid 489: ok max_abs_err 0 rel_l2 0
// CHECK: moments, block 96x1, grid 1: ok max_abs_err 0 rel_l2 0
// CHECK: moments, block 1024x1, grid 7: ok max_abs_err 0 rel_l2 0
// CHECK: count_sum count, block 256x1, grid 489: ok max_abs_err 0 rel_l2 0
// CHECK: count_sum total, block 256x1, grid 489: ok max_abs_err 0 rel_l2 0
// CHECK: count_sum total, block 33x1, grid 1: ok max_abs_err 0 rel_l2 0
// CHECK: stats, block 256x1, grid 4113: ok max_abs_err 0 rel_l2 0
// CHECK: stats, block 100x1, grid 264: ok max_abs_err 0 rel_l2 0
// CHECK: stats, block 32x4, grid 1: ok max_abs_err 0 rel_l2 0
// CHECK: PASS
#include "check.h"
#include "reduction_grids.h"
#include <climits>
#include <cmath>

namespace orig {
#include "atomic_minmax.cu"
#include "atomic_moments.cu"
#include "atomic_count_sum.cu"
#include "atomic_stats.cu"
} // namespace orig
namespace v1 {
#include "atomic_minmax.v1.cu"
#include "atomic_moments.v1.cu"
#include "atomic_count_sum.v1.cu"
#include "atomic_stats.v1.cu"
} // namespace v1

namespace {

bool ok = true;

/// Runs the original with Grid0 into a buffer that starts as Init, and the
/// rewrite with every grid of gridsFor(Grid0) into the same buffer reset to
/// Init; the whole buffer (targets and sentinels) must agree.
template <typename T, typename F, typename G>
void compareRuns(const char *what, dim3 block, unsigned grid0, const std::vector<T> &init, F orig,
                 G cand, double maxAbs = 0, double relL2 = 0) {
  T *d = check::upload(init);
  orig(grid0, block, d);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  auto ref = check::download(d, init.size());
  for (unsigned g : gridsFor(grid0)) {
    CK(cudaMemcpy(d, init.data(), init.size() * sizeof(T), cudaMemcpyHostToDevice));
    cand(g, block, d);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    char name[128];
    std::snprintf(name, sizeof name, "%s, block %ux%u, grid %u", what, block.x, block.y, g);
    ok &= check::compare(name, ref, check::download(d, init.size()), maxAbs, relL2);
  }
  CK(cudaFree(d));
}

/// x rounded down to a multiple of 1/Q.
template <typename T> void quantise(std::vector<T> &x, double q) {
  for (T &v : x)
    v = T(std::floor(double(v) * q) / q);
}

} // namespace

int main() {
  // Min and max, one element per thread in the original: lo and hi two
  // adjacent ints between sentinels, v one element past its allocation's
  // start. 2D blocks repeat every element blockDim.y times (idempotent).
  {
    int n = 1000003;
    auto in = check::random<int>(n + 1, 11, -1e9, 1e9);
    int *dv = check::upload(in) + 1;
    std::vector<int> init{12345, INT_MAX, INT_MIN, -12345};
    dim3 blocks[] = {dim3(256), dim3(96), dim3(100), dim3(1024), dim3(33), dim3(32, 4),
                     dim3(10, 3)};
    for (dim3 block : blocks) {
      unsigned grid0 = check::ceilDiv(n, block.x);
      compareRuns(
          "minmax", block, grid0, init,
          [&](unsigned g, dim3 b, int *o) { orig::atomic_minmax<<<g, b>>>(dv, n, o + 1, o + 2); },
          [&](unsigned g, dim3 b, int *o) { v1::atomic_minmax<<<g, b>>>(dv, n, o + 1, o + 2); });
    }
  }
  // Sum and sum of squares over a grid-stride loop, into s = buffer + 1.
  // The inputs are multiples of 1/4 in [0, 1): their squares are multiples
  // of 1/16 and both sums (about 0.375 n and 0.22 n) stay below 2^20, so
  // every partial sum is exact in float in any order.
  {
    int n = 1000001;
    auto in = check::random<float>(n + 3, 12, 0, 1);
    quantise(in, 4);
    float *dx = check::upload(in) + 3;
    std::vector<float> init{7.0f, 0.0f, 0.0f, -7.0f};
    for (unsigned b : {256u, 96u, 100u, 1024u, 32u}) {
      unsigned grid0 = check::ceilDiv(n, b * 8);
      compareRuns(
          "moments", dim3(b), grid0, init,
          [&](unsigned g, dim3 bl, float *o) { orig::atomic_moments<<<g, bl>>>(dx, o + 1, n); },
          [&](unsigned g, dim3 bl, float *o) { v1::atomic_moments<<<g, bl>>>(dx, o + 1, n); });
    }
  }
  // A count and a sum of the elements above a threshold, an int and a float
  // target (separate allocations). Multiples of 1/16 in [-1, 1): the sum
  // (about n / 4) is exact in any order.
  {
    int n = 999999;
    auto in = check::random<float>(n + 1, 13, -1, 1);
    quantise(in, 16);
    float *dx = check::upload(in) + 1;
    for (unsigned b : {256u, 100u, 1024u, 33u}) {
      unsigned grid0 = check::ceilDiv(n, b * 8);
      float *total = check::upload(std::vector<float>{0.0f});
      compareRuns(
          "count_sum count", dim3(b), grid0, std::vector<int>{3, 0, 3},
          [&](unsigned g, dim3 bl, int *o) {
            orig::atomic_count_sum<<<g, bl>>>(dx, n, 0.25f, o + 1, total);
          },
          [&](unsigned g, dim3 bl, int *o) {
            v1::atomic_count_sum<<<g, bl>>>(dx, n, 0.25f, o + 1, total);
          });
      int *count = check::upload(std::vector<int>{0});
      compareRuns(
          "count_sum total", dim3(b), grid0, std::vector<float>{3.0f, 0.0f, 3.0f},
          [&](unsigned g, dim3 bl, float *o) {
            orig::atomic_count_sum<<<g, bl>>>(dx, n, 0.25f, count, o + 1);
          },
          [&](unsigned g, dim3 bl, float *o) {
            v1::atomic_count_sum<<<g, bl>>>(dx, n, 0.25f, count, o + 1);
          });
      CK(cudaFree(total));
      CK(cudaFree(count));
    }
  }
  // Three statistics under different conditions and an early return, into
  // st = buffer + 1 (64-bit targets at an odd 8-byte offset).
  {
    int n = 1 << 20 | 4321;
    auto in = check::random<int>(n, 14, -1000000, 1000000);
    int *dx = check::upload(in);
    std::vector<unsigned long long> init{99, 0, 0, 0, 99};
    dim3 blocks[] = {dim3(256), dim3(100), dim3(1024), dim3(32, 4), dim3(24, 5)};
    for (dim3 block : blocks) {
      unsigned grid0 = check::ceilDiv(n, block.x);
      compareRuns(
          "stats", block, grid0, init,
          [&](unsigned g, dim3 b, unsigned long long *o) {
            orig::atomic_stats<<<g, b>>>(dx, n, 1000, o + 1);
          },
          [&](unsigned g, dim3 b, unsigned long long *o) {
            v1::atomic_stats<<<g, b>>>(dx, n, 1000, o + 1);
          });
    }
  }
  std::printf("%s\n", ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
