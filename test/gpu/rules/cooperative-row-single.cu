// The cooperative-row rule's single-thread-rows rewrite computes what the
// original computes, on the GPU: rows that one thread of a block walked
// (threadIdx.x == 0, an early return, a thread-index local, a guard that
// also tests the row bound) now shared by the block's threads. The launch
// is the original's (one block per row, more blocks than rows for the
// kernels with a row bound; a 2D grid for the matrix-vector product), for
// blocks of 1, 32, 96, 100, 256 and 1024 threads and a 2D block of 16x6;
// row lengths that are not multiples of 4, shorter than a warp or of one
// element, and pointers offset by one element (no row 16-byte aligned).
// Float sums within rounding; max and argmax (values from a small set, so
// most rows have ties, NaN and rows of -INFINITY) exact.
// REQUIRES: gpu, cuda
// RUN: rm -rf %t.d && mkdir -p %t.d
// RUN: forge-port propose %S/../Inputs/rules/row_single.cu --kernel single_sum --block 256 --rules=cooperative-row --format=json > %t.d/single_sum.json
// RUN: %python %S/../../Inputs/apply_proposal.py %t.d/single_sum.json 0 %S/../Inputs/rules/row_single.cu > %t.d/row_single.0.cu
// RUN: forge-port propose %t.d/row_single.0.cu --kernel single_early --block 256 --rules=cooperative-row --format=json > %t.d/single_early.json
// RUN: %python %S/../../Inputs/apply_proposal.py %t.d/single_early.json 0 %t.d/row_single.0.cu > %t.d/row_single.1.cu
// RUN: forge-port propose %t.d/row_single.1.cu --kernel single_max --block 256 --rules=cooperative-row --format=json > %t.d/single_max.json
// RUN: %python %S/../../Inputs/apply_proposal.py %t.d/single_max.json 0 %t.d/row_single.1.cu > %t.d/row_single.2.cu
// RUN: forge-port propose %t.d/row_single.2.cu --kernel single_argmax --block 256 --rules=cooperative-row --format=json > %t.d/single_argmax.json
// RUN: %python %S/../../Inputs/apply_proposal.py %t.d/single_argmax.json 0 %t.d/row_single.2.cu > %t.d/row_single.3.cu
// RUN: forge-port propose %t.d/row_single.3.cu --kernel single_matvec --block 256 --rules=cooperative-row --format=json > %t.d/single_matvec.json
// RUN: %python %S/../../Inputs/apply_proposal.py %t.d/single_matvec.json 0 %t.d/row_single.3.cu > %t.d/row_single.4.cu
// RUN: forge-port propose %t.d/row_single.4.cu --kernel single_pitched --block 256 --rules=cooperative-row --format=json > %t.d/single_pitched.json
// RUN: %python %S/../../Inputs/apply_proposal.py %t.d/single_pitched.json 0 %t.d/row_single.4.cu > %t.d/row_single.v1.cu
// RUN: %nvcc -arch=native -O3 -I%S/../Inputs/rules -I%t.d %s -o %t.d/check
// RUN: %t.d/check | FileCheck %s --implicit-check-not=MISMATCH --implicit-check-not=FAIL
// CHECK: sum n=1027 block=1: ok
// CHECK: sum n=1027 block=100: ok
// CHECK: sum n=1027 block=1024: ok
// CHECK: sum n=1027 block=16x6: ok
// CHECK: sum n=1024 a+1 block=256: ok
// CHECK: max n=33 block=96: ok max_abs_err 0 rel_l2 0
// CHECK: early n=1 block=32: ok
// CHECK: argmax n=1027 block=100: ok max_abs_err 0 rel_l2 0
// CHECK: argmax n=2 block=1024: ok max_abs_err 0 rel_l2 0
// CHECK: matvec n=4099 x+1 block=256: ok
// CHECK: pitched n=1027 block=100: ok
// CHECK: PASS
#include "check.h"
#include <string>

namespace orig {
#include "row_single.cu"
} // namespace orig
namespace v1 {
#include "row_single.v1.cu"
} // namespace v1

namespace {

/// The block shapes every kernel runs with: any size is allowed, whole
/// warps or not, 1D or 2D.
const dim3 Blocks[] = {dim3(1),   dim3(32),   dim3(96),   dim3(100),
                       dim3(256), dim3(1024), dim3(16, 6)};

std::string blockName(dim3 b) {
  char s[32];
  if (b.y == 1)
    std::snprintf(s, sizeof s, "%u", b.x);
  else
    std::snprintf(s, sizeof s, "%ux%u", b.x, b.y);
  return s;
}

/// Runs the original and the rewrite with the same launch for every block
/// shape and compares the downloads of Out (n elements).
template <typename T, typename O, typename V, typename Launch>
bool checkBlocks(const std::string &what, T *Out, size_t n, O o, V v, Launch launch,
                 double maxAbs, double relL2) {
  bool ok = true;
  for (dim3 b : Blocks) {
    auto run = [&](auto kernel) {
      check::poison(Out, n);
      launch(kernel, b);
      CK(cudaGetLastError());
      CK(cudaDeviceSynchronize());
      return check::download(Out, n);
    };
    auto ref = run(o);
    std::string name = what + " block=" + blockName(b);
    ok &= check::compare(name.c_str(), ref, run(v), maxAbs, relL2);
  }
  return ok;
}

} // namespace

int main() {
  bool ok = true;
  const int m = 613;
  // Sums (the if guard; the early return, with a bias and more blocks than
  // rows) and max: odd, even, short and one-element rows, an offset matrix.
  struct Case {
    int n, off;
  };
  const Case Cases[] = {{1027, 0}, {1024, 0}, {1024, 1}, {33, 0}, {1, 0}};
  for (const Case &C : Cases) {
    auto hA = check::random<float>(size_t(m) * C.n + 1, 10 + C.n);
    float *dA = check::upload(hA), *dy;
    CK(cudaMalloc(&dy, m * sizeof(float)));
    const float *A = dA + C.off;
    std::string sfx = " n=" + std::to_string(C.n) + (C.off ? " a+1" : "");
    ok &= checkBlocks(
        "sum" + sfx, dy, m, orig::single_sum, v1::single_sum,
        [&](auto k, dim3 b) { k<<<m, b>>>(A, dy, C.n); }, 1e-4, 1e-5);
    ok &= checkBlocks(
        "early" + sfx, dy, m, orig::single_early, v1::single_early,
        [&](auto k, dim3 b) { k<<<m + 3, b>>>(A, dy, m, C.n); }, 1e-4, 1e-5);
    ok &= checkBlocks(
        "max" + sfx, dy, m, orig::single_max, v1::single_max,
        [&](auto k, dim3 b) { k<<<m + 1, b>>>(A, dy, m, C.n); }, 0, 0);
    CK(cudaFree(dA));
    CK(cudaFree(dy));
  }
  // Argmax: values from a small set (ties in most rows), some NaN, rows of
  // -INFINITY (nothing beats the start: -1).
  for (int n : {1027, 257, 2, 1}) {
    auto u = check::random<double>(size_t(m) * n, 100 + n, 0, 1);
    std::vector<float> hX(u.size());
    for (size_t i = 0; i < u.size(); ++i) {
      hX[i] = float(int(u[i] * 6)) - 2;
      size_t r = i / n;
      if (r % 7 == 3 && i % 5 == 0)
        hX[i] = NAN;
      if (r % 17 == 6)
        hX[i] = -INFINITY;
    }
    float *dX = check::upload(hX);
    int *dAt;
    CK(cudaMalloc(&dAt, m * sizeof(int)));
    ok &= checkBlocks(
        "argmax n=" + std::to_string(n), dAt, m, orig::single_argmax, v1::single_argmax,
        [&](auto k, dim3 b) { k<<<m + 5, b>>>(dX, dAt, m, n); }, 0, 0);
    CK(cudaFree(dX));
    CK(cudaFree(dAt));
  }
  // Matrix-vector rows on a 2D grid (more blocks than rows), x offset.
  for (int n : {4099, 1024, 5}) {
    for (int offX : {0, 1}) {
      auto hA = check::random<float>(size_t(m) * n, 30 + n);
      auto hx = check::random<float>(n + 1, 31 + n);
      float *dA = check::upload(hA), *dx = check::upload(hx), *dy;
      CK(cudaMalloc(&dy, m * sizeof(float)));
      dim3 grid(37, check::ceilDiv(m, 37));
      ok &= checkBlocks(
          "matvec n=" + std::to_string(n) + (offX ? " x+1" : ""), dy, m, orig::single_matvec,
          v1::single_matvec, [&](auto k, dim3 b) { k<<<grid, b>>>(dA, dx + offX, dy, m, n); },
          1e-3, 2e-5);
      CK(cudaFree(dA));
      CK(cudaFree(dx));
      CK(cudaFree(dy));
    }
  }
  // Pitched rows: a pitch of n + 3 floats (rows 16-byte aligned only some
  // of the time), more blocks than rows.
  for (int n : {1027, 64, 3}) {
    size_t pitch = (n + 3) * sizeof(float);
    auto hA = check::random<float>(size_t(m) * (n + 3), 50 + n);
    float *dA = check::upload(hA), *dy;
    CK(cudaMalloc(&dy, m * sizeof(float)));
    ok &= checkBlocks(
        "pitched n=" + std::to_string(n), dy, m, orig::single_pitched, v1::single_pitched,
        [&](auto k, dim3 b) { k<<<m + 7, b>>>(dA, pitch, dy, m, n); }, 1e-4, 1e-5);
    CK(cudaFree(dA));
    CK(cudaFree(dy));
  }
  std::printf("%s\n", ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
