// hierarchical-reduction's rewrite of a per-block shared-memory tree whose
// result thread 0 combines with one atomic (test/gpu/Inputs/rules/
// tree_atomic.cu: a dot product over a static array, an interleaved
// doubling tree through dynamic shared memory, an unsigned count, an int
// maximum into atomicMax, a double sum of squares over a while loop, the
// first add during the load, a grid-stride loop before the tree) computes
// what the original computes, on the GPU: the original on its grid (one
// block per blockDim elements, 2 x for the first add), the rewrite on that
// grid and on the capped grids below it (down to one block); power-of-two
// blocks of 16 (not whole warps: the fallback of one atomic per thread)
// to 1024 (256 at most for the static array); odd sizes (1, 255, 4097,
// 1000003) and inputs offset by one element. Float inputs are multiples of
// 1/16 with sums below 2^20, so every partial sum is exact in any order
// and the float results must match bitwise (a lost or doubled element
// shows); the count and the maximum are exact; the double sum of squares
// compares within rounding. With --bench: times at 64M elements (the
// rewrite on FORGE_WAVES = 2 waves: 2 x SMs x 8 blocks of 256).
// REQUIRES: gpu, cuda
// RUN: rm -rf %t.d && mkdir -p %t.d && cp %S/../Inputs/rules/tree_atomic.cu %t.d/k0.cu
// RUN: i=0; for k in tree_dot tree_sum_interleaved tree_count tree_max_int tree_sumsq_while tree_first_add tree_sum_loop; do \
// RUN:   forge-port propose %t.d/k$i.cu --kernel $k --block 256 --rules=hierarchical-reduction --apply -o %t.d/k$((i+1)).cu || exit 1; i=$((i+1)); done; \
// RUN:   cp %t.d/k$i.cu %t.d/tree_atomic.v1.cu
// RUN: %nvcc -arch=native -O3 -I%S/../Inputs/rules -I%t.d %s -o %t.d/check
// RUN: %t.d/check | FileCheck %s --implicit-check-not=MISMATCH --implicit-check-not=FAIL
// CHECK: dot n=1000003 block=256 grid 3907: ok max_abs_err 0 rel_l2 0
// CHECK: first add n=1000003 block=256 grid 1954: ok max_abs_err 0 rel_l2 0
// CHECK: dot n=1000003 block=16 grid 1: ok max_abs_err 0 rel_l2 0
// CHECK: interleaved n=1000003 block=1024 grid 7: ok max_abs_err 0 rel_l2 0
// CHECK: count n=1000003 block=64 grid 264: ok max_abs_err 0 rel_l2 0
// CHECK: max int n=1000003 block=128 grid 1: ok max_abs_err 0 rel_l2 0
// CHECK: loop n=1000003 block=512 grid 1: ok max_abs_err 0 rel_l2 0
// CHECK: dot in+1 n=1000003 block=256 grid 7: ok max_abs_err 0 rel_l2 0
// CHECK: first add n=1 block=16 grid 1: ok max_abs_err 0 rel_l2 0
// CHECK: sumsq while n=4097 block=512 grid 7: ok
// CHECK: PASS
#include "check.h"
#include "reduction_grids.h"
#include <climits>
#include <cmath>

namespace orig {
#include "tree_atomic.cu"
} // namespace orig
namespace v1 {
#include "tree_atomic.v1.cu"
} // namespace v1

namespace {

bool ok = true;

/// Runs the original on Grid0 and the rewrite on every grid of
/// gridsFor(Grid0), Block threads and Block elements of T of dynamic shared
/// memory each, into a one-element result starting at Init.
template <typename T, typename S, typename F, typename G>
void compareScalar(const char *what, int n, unsigned block, unsigned grid0, T init, F orig,
                   G cand, double maxAbs, double relL2) {
  T *d = check::upload(std::vector<T>{init});
  size_t smem = block * sizeof(S);
  orig(grid0, block, smem, d);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  auto ref = check::download(d, 1);
  for (unsigned g : gridsFor(grid0)) {
    CK(cudaMemcpy(d, &init, sizeof(T), cudaMemcpyHostToDevice));
    cand(g, block, smem, d);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    char name[160];
    std::snprintf(name, sizeof name, "%s n=%d block=%u grid %u", what, n, block, g);
    ok &= check::compare(name, ref, check::download(d, 1), maxAbs, relL2);
  }
  CK(cudaFree(d));
}

/// Multiples of 1/16 in [0, 1) (or [-1, 1)): float sums of up to 2^20 of
/// them are exact in any order.
std::vector<float> sixteenths(size_t n, unsigned seed, double lo = 0) {
  auto v = check::random<float>(n, seed, lo, 1);
  for (float &x : v)
    x = std::floor(x * 16) / 16;
  return v;
}

void checkAll() {
  const unsigned Blocks[] = {256, 16, 1024, 64, 128, 512, 32};
  for (int n : {1000003, 1, 255, 4097}) {
    for (int off = 0; off < 2; ++off) {
      // The dot product: products of multiples of 1/4 are multiples of 1/16.
      auto a = sixteenths(n + 1, 1), b = sixteenths(n + 1, 2);
      for (auto *v : {&a, &b})
        for (float &x : *v)
          x = std::floor(x * 4) / 4;
      float *da = check::upload(a), *db = check::upload(b);
      float *x0 = check::upload(sixteenths(n + 1, 3, -1));
      auto fx = check::random<float>(n + 1, 4, -1, 1);
      float *dfx = check::upload(fx);
      int *dv = check::upload(check::random<int>(n + 1, 5, -2e9, 2e9));
      double *dd = check::upload(check::random<double>(n + 1, 6, -1, 1));
      const float *A = da + off, *B = db + off, *X = x0 + off, *FX = dfx + off;
      const int *V = dv + off;
      const double *D = dd + off;
      for (unsigned block : Blocks) {
        unsigned g1 = check::ceilDiv(n, block), g2 = check::ceilDiv(n, 2 * block);
        unsigned gl = std::max(1u, check::ceilDiv(n, block * 8));
        const char *O = off ? " in+1" : "";
        char w[64];
        if (block <= 256) {
          std::snprintf(w, sizeof w, "dot%s", O);
          compareScalar<float, float>(
              w, n, block, g1, 0.0f,
              [&](unsigned g, unsigned bl, size_t, float *o) {
                orig::tree_dot<<<g, bl>>>(A, B, o, n);
              },
              [&](unsigned g, unsigned bl, size_t, float *o) {
                v1::tree_dot<<<g, bl>>>(A, B, o, n);
              },
              0, 0);
        }
        std::snprintf(w, sizeof w, "interleaved%s", O);
        compareScalar<float, float>(
            w, n, block, g1, 0.0f,
            [&](unsigned g, unsigned bl, size_t sm, float *o) {
              orig::tree_sum_interleaved<<<g, bl, sm>>>(X, o, unsigned(n));
            },
            [&](unsigned g, unsigned bl, size_t sm, float *o) {
              v1::tree_sum_interleaved<<<g, bl, sm>>>(X, o, unsigned(n));
            },
            0, 0);
        std::snprintf(w, sizeof w, "count%s", O);
        compareScalar<unsigned, unsigned>(
            w, n, block, g1, 7u,
            [&](unsigned g, unsigned bl, size_t sm, unsigned *o) {
              orig::tree_count<<<g, bl, sm>>>(FX, o, n);
            },
            [&](unsigned g, unsigned bl, size_t sm, unsigned *o) {
              v1::tree_count<<<g, bl, sm>>>(FX, o, n);
            },
            0, 0);
        std::snprintf(w, sizeof w, "max int%s", O);
        compareScalar<int, int>(
            w, n, block, g1, INT_MIN,
            [&](unsigned g, unsigned bl, size_t sm, int *o) {
              orig::tree_max_int<<<g, bl, sm>>>(V, o, n);
            },
            [&](unsigned g, unsigned bl, size_t sm, int *o) {
              v1::tree_max_int<<<g, bl, sm>>>(V, o, n);
            },
            0, 0);
        std::snprintf(w, sizeof w, "sumsq while%s", O);
        compareScalar<double, double>(
            w, n, block, g1, 0.5,
            [&](unsigned g, unsigned bl, size_t sm, double *o) {
              orig::tree_sumsq_while<<<g, bl, sm>>>(D, o, n);
            },
            [&](unsigned g, unsigned bl, size_t sm, double *o) {
              v1::tree_sumsq_while<<<g, bl, sm>>>(D, o, n);
            },
            // A double sum of about n / 3 from atomics in any block order:
            // 2.7e-8 apart on an H100 (relative 8e-14), so the bound is relative.
            1e-6, 1e-12);
        std::snprintf(w, sizeof w, "first add%s", O);
        compareScalar<float, float>(
            w, n, block, g2, 0.0f,
            [&](unsigned g, unsigned bl, size_t sm, float *o) {
              orig::tree_first_add<<<g, bl, sm>>>(X, o, unsigned(n));
            },
            [&](unsigned g, unsigned bl, size_t sm, float *o) {
              v1::tree_first_add<<<g, bl, sm>>>(X, o, unsigned(n));
            },
            0, 0);
        std::snprintf(w, sizeof w, "loop%s", O);
        compareScalar<float, float>(
            w, n, block, gl, 0.0f,
            [&](unsigned g, unsigned bl, size_t sm, float *o) {
              orig::tree_sum_loop<<<g, bl, sm>>>(X, o, n);
            },
            [&](unsigned g, unsigned bl, size_t sm, float *o) {
              v1::tree_sum_loop<<<g, bl, sm>>>(X, o, n);
            },
            0, 0);
      }
      for (void *p : {(void *)da, (void *)db, (void *)x0, (void *)dfx, (void *)dv, (void *)dd})
        CK(cudaFree(p));
    }
  }
}

/// 64M elements: the original on one block of 256 per 256 elements (2 x
/// for the first add), the rewrite on FORGE_WAVES = 2 waves of 8 blocks of
/// 256 per SM.
void benchAll() {
  const int n = 1 << 26;
  const unsigned block = 256, g1 = n / block, g2 = n / (2 * block);
  int sms = 0;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  const unsigned capped = 2u * unsigned(sms) * 8u;
  float *a = check::upload(sixteenths(n, 11)), *b = check::upload(sixteenths(n, 12));
  float *fx = check::upload(check::random<float>(n, 13, -1, 1));
  int *v = check::upload(check::random<int>(n, 14, -2e9, 2e9));
  float *fo;
  unsigned *uo;
  int *io;
  CK(cudaMalloc(&fo, sizeof(float)));
  CK(cudaMalloc(&uo, sizeof(unsigned)));
  CK(cudaMalloc(&io, sizeof(int)));
  const size_t sf = block * sizeof(float);
  check::report("dot 64M",
                check::time([&] { orig::tree_dot<<<g1, block>>>(a, b, fo, n); }),
                check::time([&] { v1::tree_dot<<<std::min(g1, capped), block>>>(a, b, fo, n); }));
  check::report(
      "interleaved sum 64M",
      check::time([&] { orig::tree_sum_interleaved<<<g1, block, sf>>>(a, fo, unsigned(n)); }),
      check::time([&] {
        v1::tree_sum_interleaved<<<std::min(g1, capped), block, sf>>>(a, fo, unsigned(n));
      }));
  check::report(
      "count 64M", check::time([&] { orig::tree_count<<<g1, block, sf>>>(fx, uo, n); }),
      check::time([&] { v1::tree_count<<<std::min(g1, capped), block, sf>>>(fx, uo, n); }));
  check::report(
      "max int 64M", check::time([&] { orig::tree_max_int<<<g1, block, sf>>>(v, io, n); }),
      check::time([&] { v1::tree_max_int<<<std::min(g1, capped), block, sf>>>(v, io, n); }));
  check::report(
      "first add 64M",
      check::time([&] { orig::tree_first_add<<<g2, block, sf>>>(a, fo, unsigned(n)); }),
      check::time([&] {
        v1::tree_first_add<<<std::min(g2, capped), block, sf>>>(a, fo, unsigned(n));
      }));
  for (void *p : {(void *)a, (void *)b, (void *)fx, (void *)v, (void *)fo, (void *)uo, (void *)io})
    CK(cudaFree(p));
}

} // namespace

int main(int argc, char **argv) {
  checkAll();
  if (check::bench(argc, argv))
    benchAll();
  std::printf("%s\n", ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
