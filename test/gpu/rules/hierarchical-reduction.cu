// The hierarchical-reduction rule's rewrites compute what the originals
// compute, on the GPU, for every launch the rewrite allows: the original
// grid and grids capped below it (the SpecChange's min(...)), blocks that
// are multiples of 32 (the shuffle path, up to 1024 threads), and blocks
// that are not (the fallback of one atomic per thread), 2D blocks, odd
// sizes and misaligned pointers. Float sums compare within rounding
// (the sum is re-associated), everything else exactly.
// REQUIRES: gpu, cuda
// RUN: rm -rf %t.d && mkdir -p %t.d
// RUN: forge-port propose %S/../Inputs/rules/atomic_sum_loop.cu --kernel atomic_sum_loop --block 256 --rules=hierarchical-reduction --apply -o %t.d/atomic_sum_loop.v1.cu
// RUN: forge-port propose %S/../Inputs/rules/atomic_dot.cu --kernel atomic_dot --block 256 --rules=hierarchical-reduction --apply -o %t.d/atomic_dot.v1.cu
// RUN: forge-port propose %S/../Inputs/rules/atomic_max_int.cu --kernel atomic_max_int --block 256 --rules=hierarchical-reduction --apply -o %t.d/atomic_max_int.v1.cu
// RUN: forge-port propose %S/../Inputs/rules/atomic_sum2d.cu --kernel atomic_sum2d --block 32,8 --rules=hierarchical-reduction --apply -o %t.d/atomic_sum2d.v1.cu
// RUN: forge-port propose %S/../Inputs/rules/atomic_count.cu --kernel atomic_count --block 256 --rules=hierarchical-reduction --apply -o %t.d/atomic_count.v1.cu
// RUN: forge-port propose %S/../Inputs/rules/atomic_per_block.cu --kernel atomic_per_block --block 256 --rules=hierarchical-reduction --apply -o %t.d/atomic_per_block.v1.cu
// RUN: forge-port propose %S/../Inputs/rules/atomic_argmax.cu --kernel atomic_argmax --block 256 --rules=hierarchical-reduction --apply -o %t.d/atomic_argmax.v1.cu
// RUN: forge-port propose %S/../Inputs/rules/atomic_float_max.cu --kernel atomic_float_max --block 256 --rules=hierarchical-reduction --apply -o %t.d/atomic_float_max.v1.cu
// RUN: %nvcc -arch=native -O3 -I%S/../Inputs/rules -I%t.d %s -o %t.d/check
// RUN: %t.d/check | FileCheck %s --implicit-check-not=MISMATCH --implicit-check-not=FAIL
// CHECK: sum loop, block 256, grid 489: ok
// CHECK: sum loop, block 100, grid 1: ok max_abs_err 0 rel_l2 0
// CHECK: dot, block 256, grid 3907: ok
// CHECK: dot, block 1024, grid 7: ok max_abs_err 0 rel_l2 0
// CHECK: max int, block 256, grid 3907: ok max_abs_err 0 rel_l2 0
// CHECK: sum2d, block 32x8, grid 32x42: ok
// CHECK: sum2d, block 10x10, grid 3x1: ok
// CHECK: count, block 96, grid 1: ok max_abs_err 0 rel_l2 0
// CHECK: per block, block 100, grid 10000: ok
// CHECK: argmax, block 100, grid 2112: ok max_abs_err 0 rel_l2 0
// CHECK: argmax, block 1024, grid 7: ok max_abs_err 0 rel_l2 0
// CHECK: float max, all negative, block 256, grid 123: ok max_abs_err 0 rel_l2 0
// CHECK: float max, mixed signs, block 1024, grid 1: ok max_abs_err 0 rel_l2 0
// CHECK: PASS
#include "check.h"
#include "reduction_grids.h"
#include <climits>
#include <cmath>

namespace orig {
#include "atomic_sum_loop.cu"
#include "atomic_dot.cu"
#include "atomic_max_int.cu"
#include "atomic_sum2d.cu"
#include "atomic_count.cu"
#include "atomic_per_block.cu"
#include "atomic_argmax.cu"
#include "atomic_float_max.cu"
} // namespace orig
namespace v1 {
#include "atomic_sum_loop.v1.cu"
#include "atomic_dot.v1.cu"
#include "atomic_max_int.v1.cu"
#include "atomic_sum2d.v1.cu"
#include "atomic_count.v1.cu"
#include "atomic_per_block.v1.cu"
#include "atomic_argmax.v1.cu"
#include "atomic_float_max.v1.cu"
} // namespace v1

namespace {

template <typename T> T *scalar(T init) {
  return check::upload(std::vector<T>{init});
}
template <typename T> void reset(T *d, T init) {
  CK(cudaMemcpy(d, &init, sizeof(T), cudaMemcpyHostToDevice));
}

bool ok = true;

/// Runs the original with Grid0 and the rewrite with every grid of
/// gridsFor(Grid0), one block each, into a one-element result.
template <typename T, typename F, typename G>
void compareScalar(const char *what, unsigned block, unsigned grid0, T init, F orig, G cand,
                   double maxAbs, double relL2) {
  T *d = scalar(init);
  orig(grid0, block, d);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  auto ref = check::download(d, 1);
  for (unsigned g : gridsFor(grid0)) {
    reset(d, init);
    cand(g, block, d);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    char name[128];
    std::snprintf(name, sizeof name, "%s, block %u, grid %u", what, block, g);
    ok &= check::compare(name, ref, check::download(d, 1), maxAbs, relL2);
  }
  CK(cudaFree(d));
}

} // namespace

int main() {
  // A grid-stride sum, x offset by one element so that no load is 16-byte
  // aligned. The inputs are multiples of 1/16 in [0, 1) and the sum (about
  // n / 2) stays below 2^20, so every partial sum is exact in float whatever
  // the order: the original and the rewrite must agree exactly, and a lost or
  // doubled element shows.
  {
    int n = 1000003;
    auto in = check::random<float>(n + 1, 1, 0, 1);
    for (float &v : in)
      v = std::floor(v * 16) / 16;
    float *dx = check::upload(in) + 1;
    for (unsigned block : {256u, 96u, 100u, 1024u, 32u}) {
      unsigned grid0 = check::ceilDiv(n, block * 8);
      compareScalar(
          "sum loop", block, grid0, 0.0f,
          [&](unsigned g, unsigned b, float *o) { orig::atomic_sum_loop<<<g, b>>>(dx, o, n); },
          [&](unsigned g, unsigned b, float *o) { v1::atomic_sum_loop<<<g, b>>>(dx, o, n); }, 0.0,
          0.0);
    }
  }
  // A dot product, one element per thread in the original (unsigned n).
  {
    unsigned n = 999999;
    // Multiples of 1/4, so that products are multiples of 1/16 and the sum
    // (about n / 7) is exact in float in any order, as above.
    auto a = check::random<float>(n + 1, 2, 0, 1), b = check::random<float>(n + 3, 3, 0, 1);
    for (auto *v : {&a, &b})
      for (float &x : *v)
        x = std::floor(x * 4) / 4;
    float *da = check::upload(a) + 1, *db = check::upload(b) + 3;
    for (unsigned block : {256u, 96u, 100u, 1024u, 33u}) {
      unsigned grid0 = check::ceilDiv(n, block);
      compareScalar(
          "dot", block, grid0, 0.0f,
          [&](unsigned g, unsigned bl, float *o) { orig::atomic_dot<<<g, bl>>>(da, db, o, n); },
          [&](unsigned g, unsigned bl, float *o) { v1::atomic_dot<<<g, bl>>>(da, db, o, n); }, 0.0,
          0.0);
    }
  }
  // An int maximum with an early return (exact).
  {
    int n = 1000001;
    auto in = check::random<int>(n, 4, -1e9, 1e9);
    int *dx = check::upload(in);
    for (unsigned block : {256u, 128u, 100u, 1024u}) {
      unsigned grid0 = check::ceilDiv(n, block);
      compareScalar(
          "max int", block, grid0, INT_MIN,
          [&](unsigned g, unsigned b, int *o) { orig::atomic_max_int<<<g, b>>>(dx, o, n); },
          [&](unsigned g, unsigned b, int *o) { v1::atomic_max_int<<<g, b>>>(dx, o, n); }, 0, 0);
    }
  }
  // A double sum over a 2D image: 2D blocks, the original 2D grid, and the
  // capped 1D grids the SpecChange gives (grid.y -> 1), and a small 2D grid.
  {
    int w = 1001, h = 333;
    auto in = check::random<double>(size_t(w) * h, 5, -1, 1);
    double *dimg = check::upload(in);
    double *d = scalar(0.0);
    unsigned blocks[][2] = {{32, 8}, {16, 16}, {10, 10}, {24, 5}, {64, 16}};
    for (auto &bl : blocks) {
      dim3 block(bl[0], bl[1]);
      dim3 grid0(check::ceilDiv(w, bl[0]), check::ceilDiv(h, bl[1]));
      reset(d, 0.0);
      orig::atomic_sum2d<<<grid0, block>>>(dimg, d, w, h);
      CK(cudaGetLastError());
      auto ref = check::download(d, 1);
      std::vector<dim3> grids{grid0, dim3(grid0.x * grid0.y < 264 ? 1 : 264), dim3(7), dim3(3, 1),
                              dim3(2, 5)};
      for (dim3 g : grids) {
        reset(d, 0.0);
        v1::atomic_sum2d<<<g, block>>>(dimg, d, w, h);
        CK(cudaGetLastError());
        char name[128];
        std::snprintf(name, sizeof name, "sum2d, block %ux%u, grid %ux%u", block.x, block.y, g.x,
                      g.y);
        ok &= check::compare(name, ref, check::download(d, 1), 1e-9, 1e-12);
      }
    }
    CK(cudaFree(d));
  }
  // A count of positive elements (exact).
  {
    int n = 777777;
    auto in = check::random<float>(n, 6, -1, 1);
    float *dx = check::upload(in);
    for (unsigned block : {256u, 96u, 100u, 1024u}) {
      unsigned grid0 = check::ceilDiv(n, block);
      compareScalar(
          "count", block, grid0, 0u,
          [&](unsigned g, unsigned b, unsigned *o) { orig::atomic_count<<<g, b>>>(dx, o, n); },
          [&](unsigned g, unsigned b, unsigned *o) { v1::atomic_count<<<g, b>>>(dx, o, n); }, 0, 0);
    }
  }
  // One slot per block: the grid stays (no SpecChange), so only the
  // original grid; every block's slot compares.
  {
    int n = 999999;
    auto in = check::random<float>(n + 1, 7, -1, 1);
    float *dx = check::upload(in) + 1;
    for (unsigned block : {256u, 100u, 1024u}) {
      unsigned grid = check::ceilDiv(n, block);
      float *d;
      CK(cudaMalloc(&d, grid * sizeof(float)));
      auto run = [&](auto kernel) {
        CK(cudaMemset(d, 0, grid * sizeof(float)));
        kernel<<<grid, block>>>(dx, d, n);
        CK(cudaGetLastError());
        return check::download(d, grid);
      };
      auto ref = run(orig::atomic_per_block);
      char name[128];
      std::snprintf(name, sizeof name, "per block, block %u, grid %u", block, grid);
      ok &= check::compare(name, ref, run(v1::atomic_per_block), 1e-4, 1e-5);
      CK(cudaFree(d));
    }
  }
  // The suite's packed argmax (exact; ties keep the lowest index).
  {
    int n = 1 << 20 | 12345;
    auto in = check::random<float>(n, 8, -100, 100);
    in[n / 3] = in[n / 2] = 1000.0f; // a tie
    float *dx = check::upload(in);
    for (unsigned block : {256u, 100u, 1024u}) {
      unsigned grid0 = check::ceilDiv(n, block * 4);
      compareScalar(
          "argmax", block, grid0, 0ull,
          [&](unsigned g, unsigned b, unsigned long long *o) {
            orig::atomic_argmax<<<g, b>>>(dx, o, n);
          },
          [&](unsigned g, unsigned b, unsigned long long *o) {
            v1::atomic_argmax<<<g, b>>>(dx, o, n);
          },
          0, 0);
    }
  }
  // A float maximum through integer atomics (exact): all negative inputs
  // (the unsigned branch), then mixed signs with -0.0f and +0.0f present.
  {
    int n = 1000003;
    for (int mixed = 0; mixed < 2; ++mixed) {
      auto in = check::random<float>(n, 9 + mixed, mixed ? -50 : -100, mixed ? 50 : -1);
      in[17] = -0.0f;
      in[n - 1] = mixed ? 0.0f : -0.5f;
      float *dx = check::upload(in);
      for (unsigned block : {256u, 100u, 1024u}) {
        unsigned grid0 = check::ceilDiv(n, block * 32);
        compareScalar(
            mixed ? "float max, mixed signs" : "float max, all negative", block, grid0, -3.0e38f,
            [&](unsigned g, unsigned b, float *o) { orig::atomic_float_max<<<g, b>>>(dx, o, n); },
            [&](unsigned g, unsigned b, float *o) { v1::atomic_float_max<<<g, b>>>(dx, o, n); }, 0,
            0);
      }
      CK(cudaFree(dx));
    }
  }
  std::printf("%s\n", ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
