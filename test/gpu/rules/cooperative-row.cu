// The cooperative-row rule's rewrites compute what the originals compute,
// on the GPU: the first proposal (a warp per row) and the second (a block
// per row), each on the grid its SpecChange asks for (32 x, or blockDim.x
// x, the original), for block sizes that are multiples of 32, and for a
// block of 100 threads, where the rewrite's device check falls back to the
// original body. Row lengths that are not multiples of 4 (so only some rows
// are 16-byte aligned) or shorter than a warp, and pointers offset by one
// element (no row aligned); float sums within rounding, max and the scaling
// exactly. Eight kernels: a float matrix-vector product (and one walked by a
// while loop), a double one with
// a bias and size_t indices, a row max through a row pointer, a 3-pass
// softmax, an in-place 2-pass row scaling, a CSR sparse matrix-vector
// product (empty and long rows), a layer normalisation, a float row argmax
// (values from a small set, so most rows have ties; NaN, -0.0, rows of NaN
// and of -INFINITY) and an unsigned row argmin with a 64-bit position,
// both exact. With --bench:
// times at 8192 x 8192.
// REQUIRES: gpu, cuda
// RUN: rm -rf %t.d && mkdir -p %t.d
// RUN: forge-port propose %S/../Inputs/rules/row_matvec.cu --kernel row_matvec --block 256 --rules=cooperative-row --format=json > %t.d/row_matvec.json
// RUN: %python %S/../../Inputs/apply_proposal.py %t.d/row_matvec.json 0 %S/../Inputs/rules/row_matvec.cu > %t.d/row_matvec.v1.cu
// RUN: %python %S/../../Inputs/apply_proposal.py %t.d/row_matvec.json 1 %S/../Inputs/rules/row_matvec.cu > %t.d/row_matvec.v2.cu
// RUN: forge-port propose %S/../Inputs/rules/row_matvec_f64.cu --kernel row_matvec_f64 --block 256 --rules=cooperative-row --format=json > %t.d/row_matvec_f64.json
// RUN: %python %S/../../Inputs/apply_proposal.py %t.d/row_matvec_f64.json 0 %S/../Inputs/rules/row_matvec_f64.cu > %t.d/row_matvec_f64.v1.cu
// RUN: %python %S/../../Inputs/apply_proposal.py %t.d/row_matvec_f64.json 1 %S/../Inputs/rules/row_matvec_f64.cu > %t.d/row_matvec_f64.v2.cu
// RUN: forge-port propose %S/../Inputs/rules/row_max.cu --kernel row_max --block 256 --rules=cooperative-row --format=json > %t.d/row_max.json
// RUN: %python %S/../../Inputs/apply_proposal.py %t.d/row_max.json 0 %S/../Inputs/rules/row_max.cu > %t.d/row_max.v1.cu
// RUN: %python %S/../../Inputs/apply_proposal.py %t.d/row_max.json 1 %S/../Inputs/rules/row_max.cu > %t.d/row_max.v2.cu
// RUN: forge-port propose %S/../Inputs/rules/row_softmax.cu --kernel row_softmax --block 256 --rules=cooperative-row --format=json > %t.d/row_softmax.json
// RUN: %python %S/../../Inputs/apply_proposal.py %t.d/row_softmax.json 0 %S/../Inputs/rules/row_softmax.cu > %t.d/row_softmax.v1.cu
// RUN: %python %S/../../Inputs/apply_proposal.py %t.d/row_softmax.json 1 %S/../Inputs/rules/row_softmax.cu > %t.d/row_softmax.v2.cu
// RUN: forge-port propose %S/../Inputs/rules/row_scale.cu --kernel row_scale --block 256 --rules=cooperative-row --format=json > %t.d/row_scale.json
// RUN: %python %S/../../Inputs/apply_proposal.py %t.d/row_scale.json 0 %S/../Inputs/rules/row_scale.cu > %t.d/row_scale.v1.cu
// RUN: %python %S/../../Inputs/apply_proposal.py %t.d/row_scale.json 1 %S/../Inputs/rules/row_scale.cu > %t.d/row_scale.v2.cu
// RUN: forge-port propose %S/../Inputs/rules/row_spmv_csr.cu --kernel row_spmv_csr --block 256 --rules=cooperative-row --format=json > %t.d/row_spmv_csr.json
// RUN: %python %S/../../Inputs/apply_proposal.py %t.d/row_spmv_csr.json 0 %S/../Inputs/rules/row_spmv_csr.cu > %t.d/row_spmv_csr.v1.cu
// RUN: %python %S/../../Inputs/apply_proposal.py %t.d/row_spmv_csr.json 1 %S/../Inputs/rules/row_spmv_csr.cu > %t.d/row_spmv_csr.v2.cu
// RUN: forge-port propose %S/../Inputs/rules/row_layernorm.cu --kernel row_layernorm --block 256 --rules=cooperative-row --format=json > %t.d/row_layernorm.json
// RUN: %python %S/../../Inputs/apply_proposal.py %t.d/row_layernorm.json 0 %S/../Inputs/rules/row_layernorm.cu > %t.d/row_layernorm.v1.cu
// RUN: %python %S/../../Inputs/apply_proposal.py %t.d/row_layernorm.json 1 %S/../Inputs/rules/row_layernorm.cu > %t.d/row_layernorm.v2.cu
// RUN: forge-port propose %S/../Inputs/rules/row_matvec_while.cu --kernel row_matvec_while --block 256 --rules=cooperative-row --format=json > %t.d/row_matvec_while.json
// RUN: %python %S/../../Inputs/apply_proposal.py %t.d/row_matvec_while.json 0 %S/../Inputs/rules/row_matvec_while.cu > %t.d/row_matvec_while.v1.cu
// RUN: %python %S/../../Inputs/apply_proposal.py %t.d/row_matvec_while.json 1 %S/../Inputs/rules/row_matvec_while.cu > %t.d/row_matvec_while.v2.cu
// RUN: forge-port propose %S/../Inputs/rules/row_argmax.cu --kernel row_argmax --block 256 --rules=cooperative-row --format=json > %t.d/row_argmax.json
// RUN: %python %S/../../Inputs/apply_proposal.py %t.d/row_argmax.json 0 %S/../Inputs/rules/row_argmax.cu > %t.d/row_argmax.a1.cu
// RUN: %python %S/../../Inputs/apply_proposal.py %t.d/row_argmax.json 1 %S/../Inputs/rules/row_argmax.cu > %t.d/row_argmax.a2.cu
// RUN: forge-port propose %t.d/row_argmax.a1.cu --kernel row_argmin_u32 --block 256 --rules=cooperative-row --format=json > %t.d/row_argmin1.json
// RUN: %python %S/../../Inputs/apply_proposal.py %t.d/row_argmin1.json 0 %t.d/row_argmax.a1.cu > %t.d/row_argmax.v1.cu
// RUN: forge-port propose %t.d/row_argmax.a2.cu --kernel row_argmin_u32 --block 256 --rules=cooperative-row --format=json > %t.d/row_argmin2.json
// RUN: %python %S/../../Inputs/apply_proposal.py %t.d/row_argmin2.json 1 %t.d/row_argmax.a2.cu > %t.d/row_argmax.v2.cu
// RUN: %nvcc -arch=native -O3 -I%S/../Inputs/rules -I%t.d %s -o %t.d/check
// RUN: %t.d/check | FileCheck %s --implicit-check-not=MISMATCH --implicit-check-not=FAIL
// CHECK: matvec n=1027 block=256, warp per row: ok
// CHECK: matvec n=1027 block=256, block per row: ok
// CHECK: matvec n=1024 A+1 block=128, warp per row: ok
// CHECK: matvec n=3 block=100, warp per row: ok
// CHECK: matvec while n=1027 block=256, warp per row: ok
// CHECK: matvec while n=1027 block=256, block per row: ok
// CHECK: matvec while n=3 block=100, warp per row: ok
// CHECK: matvec f64 n=1027 block=256, warp per row: ok
// CHECK: row max n=1027 block=256, warp per row: ok max_abs_err 0 rel_l2 0
// CHECK: softmax n=1027 block=256, warp per row: ok
// CHECK: row scale n=1027 block=256, warp per row: ok
// CHECK: csr block=256, warp per row: ok
// CHECK: csr block=100, block per row: ok
// CHECK: layernorm n=1027 block=256, warp per row: ok
// CHECK: layernorm n=1027 block=1024, block per row: ok
// CHECK: argmax n=1027 block=256, warp per row: ok max_abs_err 0 rel_l2 0
// CHECK: argmax n=1027 block=256, block per row: ok max_abs_err 0 rel_l2 0
// CHECK: argmin u32 n=1027 block=1024, block per row: ok max_abs_err 0 rel_l2 0
// CHECK: argmax n=2 block=100, block per row: ok max_abs_err 0 rel_l2 0
// CHECK: argmin u32 n=1 block=256, warp per row: ok max_abs_err 0 rel_l2 0
// CHECK: PASS
#include "check.h"

namespace orig {
#include "row_matvec.cu"
#include "row_matvec_while.cu"
#include "row_matvec_f64.cu"
#include "row_max.cu"
#include "row_softmax.cu"
#include "row_scale.cu"
#include "row_spmv_csr.cu"
#include "row_layernorm.cu"
#include "row_argmax.cu"
} // namespace orig
namespace v1 {
#include "row_matvec.v1.cu"
#include "row_matvec_while.v1.cu"
#include "row_matvec_f64.v1.cu"
#include "row_max.v1.cu"
#include "row_softmax.v1.cu"
#include "row_scale.v1.cu"
#include "row_spmv_csr.v1.cu"
#include "row_layernorm.v1.cu"
#include "row_argmax.v1.cu"
} // namespace v1
namespace v2 {
#include "row_matvec.v2.cu"
#include "row_matvec_while.v2.cu"
#include "row_matvec_f64.v2.cu"
#include "row_max.v2.cu"
#include "row_softmax.v2.cu"
#include "row_scale.v2.cu"
#include "row_spmv_csr.v2.cu"
#include "row_layernorm.v2.cu"
#include "row_argmax.v2.cu"
} // namespace v2

namespace {

/// One launch shape: the block, and the original grid for it.
struct Shape {
  unsigned Block;
};
const Shape Shapes[] = {{256}, {128}, {1024}, {100}};

/// Runs Launch(kernel, grid, block) for the original on its grid and for
/// both rewrites on the grids their SpecChanges ask for, and compares the
/// downloads of Out (n elements) after each.
template <typename T, typename Orig, typename V1, typename V2, typename Launch, typename Reset>
bool checkAll(const char *what, unsigned rows, T *Out, size_t n, Orig o, V1 a, V2 b,
              Launch launch, Reset reset, double maxAbs, double relL2) {
  bool ok = true;
  for (const Shape &S : Shapes) {
    unsigned grid = check::ceilDiv(rows, S.Block);
    auto run = [&](auto kernel, unsigned g) {
      reset();
      check::poison(Out, n);
      launch(kernel, g, S.Block);
      CK(cudaGetLastError());
      CK(cudaDeviceSynchronize());
      return check::download(Out, n);
    };
    auto ref = run(o, grid);
    char name[256];
    std::snprintf(name, sizeof name, "%s block=%u, warp per row", what, S.Block);
    ok &= check::compare(name, ref, run(a, grid * 32), maxAbs, relL2);
    std::snprintf(name, sizeof name, "%s block=%u, block per row", what, S.Block);
    ok &= check::compare(name, ref, run(b, grid * S.Block), maxAbs, relL2);
  }
  return ok;
}

} // namespace

int main(int argc, char **argv) {
  bool Bench = check::bench(argc, argv);
  bool ok = true;
  auto none = [] {};

  // Float matrix-vector products: odd and even row lengths, offset
  // pointers, rows shorter than a warp.
  {
    struct Case {
      int n, offA, offX;
    };
    const Case Cases[] = {{1027, 0, 0}, {1024, 0, 0}, {1024, 1, 0}, {1024, 0, 1}, {3, 0, 0}, {1, 0, 0}};
    const int m = 1001;
    for (const Case &C : Cases) {
      auto hA = check::random<float>(size_t(m) * C.n + 1, 10 + C.n);
      auto hx = check::random<float>(C.n + 1, 20 + C.n);
      float *dA = check::upload(hA), *dx = check::upload(hx), *dy;
      CK(cudaMalloc(&dy, m * sizeof(float)));
      const float *A = dA + C.offA, *x = dx + C.offX;
      char what[128];
      std::snprintf(what, sizeof what, "matvec n=%d%s%s", C.n, C.offA ? " A+1" : "",
                    C.offX ? " x+1" : "");
      ok &= checkAll(
          what, m, dy, m, orig::row_matvec, v1::row_matvec, v2::row_matvec,
          [&](auto k, unsigned g, unsigned b) { k<<<g, b>>>(A, x, dy, m, C.n); }, none, 1e-4,
          1e-5);
      CK(cudaFree(dA));
      CK(cudaFree(dx));
      CK(cudaFree(dy));
    }
  }
  // The same product walked by a while loop.
  {
    const int m = 1001;
    for (int n : {1027, 1024, 3}) {
      auto hA = check::random<float>(size_t(m) * n, 40 + n);
      auto hx = check::random<float>(n, 41 + n);
      float *dA = check::upload(hA), *dx = check::upload(hx), *dy;
      CK(cudaMalloc(&dy, m * sizeof(float)));
      char what[128];
      std::snprintf(what, sizeof what, "matvec while n=%d", n);
      ok &= checkAll(
          what, m, dy, m, orig::row_matvec_while, v1::row_matvec_while, v2::row_matvec_while,
          [&](auto k, unsigned g, unsigned b) { k<<<g, b>>>(dA, dx, dy, m, n); }, none, 1e-4,
          1e-5);
      CK(cudaFree(dA));
      CK(cudaFree(dx));
      CK(cudaFree(dy));
    }
  }
  // Double, with a bias.
  for (size_t n : {size_t(1027), size_t(2048), size_t(7)}) {
    const size_t m = 777;
    auto hA = check::random<double>(m * n, 30);
    auto hx = check::random<double>(n, 31);
    auto hb = check::random<double>(m, 32);
    double *dA = check::upload(hA), *dx = check::upload(hx), *db = check::upload(hb), *dy;
    CK(cudaMalloc(&dy, m * sizeof(double)));
    char what[128];
    std::snprintf(what, sizeof what, "matvec f64 n=%zu", n);
    ok &= checkAll(
        what, m, dy, m, orig::row_matvec_f64, v1::row_matvec_f64, v2::row_matvec_f64,
        [&](auto k, unsigned g, unsigned b) { k<<<g, b>>>(dA, dx, db, dy, m, n); }, none, 1e-10,
        1e-12);
    CK(cudaFree(dA));
    CK(cudaFree(dx));
    CK(cudaFree(db));
    CK(cudaFree(dy));
  }
  // Row max through a row pointer: exact.
  for (int n : {1027, 1024, 33, 2}) {
    const int m = 1003;
    auto hA = check::random<float>(size_t(m) * n, 40 + n);
    float *dA = check::upload(hA), *dy;
    CK(cudaMalloc(&dy, m * sizeof(float)));
    char what[128];
    std::snprintf(what, sizeof what, "row max n=%d", n);
    ok &= checkAll(
        what, m, dy, m, orig::row_max, v1::row_max, v2::row_max,
        [&](auto k, unsigned g, unsigned b) { k<<<g, b>>>(dA, dy, m, n); }, none, 0, 0);
    CK(cudaFree(dA));
    CK(cudaFree(dy));
  }
  // Softmax (every element of every row written).
  for (int n : {1027, 1024, 5}) {
    const int m = 517;
    auto hX = check::random<float>(size_t(m) * n, 50 + n, -4, 4);
    float *dX = check::upload(hX), *dY;
    CK(cudaMalloc(&dY, size_t(m) * n * sizeof(float)));
    char what[128];
    std::snprintf(what, sizeof what, "softmax n=%d", n);
    ok &= checkAll(
        what, m, dY, size_t(m) * n, orig::row_softmax, v1::row_softmax, v2::row_softmax,
        [&](auto k, unsigned g, unsigned b) { k<<<g, b>>>(dX, dY, m, n); }, none, 1e-6, 1e-5);
    CK(cudaFree(dX));
    CK(cudaFree(dY));
  }
  // In-place scaling: the matrix restored before every launch.
  for (int n : {1027, 1024, 31}) {
    const int m = 611;
    auto hA = check::random<float>(size_t(m) * n, 60 + n);
    float *dA;
    CK(cudaMalloc(&dA, hA.size() * sizeof(float)));
    auto restore = [&] {
      CK(cudaMemcpy(dA, hA.data(), hA.size() * sizeof(float), cudaMemcpyHostToDevice));
    };
    char what[128];
    std::snprintf(what, sizeof what, "row scale n=%d", n);
    // The output is the matrix itself: restored before every launch instead
    // of poisoned (every element is rewritten, or a wrong one shows).
    bool one = true;
    for (const Shape &S : Shapes) {
      unsigned grid = check::ceilDiv(m, S.Block);
      auto run = [&](auto kernel, unsigned g) {
        restore();
        kernel<<<g, S.Block>>>(dA, m, n);
        CK(cudaGetLastError());
        CK(cudaDeviceSynchronize());
        return check::download(dA, hA.size());
      };
      auto ref = run(orig::row_scale, grid);
      char name[256];
      std::snprintf(name, sizeof name, "%s block=%u, warp per row", what, S.Block);
      one &= check::compare(name, ref, run(v1::row_scale, grid * 32), 0, 0);
      std::snprintf(name, sizeof name, "%s block=%u, block per row", what, S.Block);
      one &= check::compare(name, ref, run(v2::row_scale, grid * S.Block), 0, 0);
    }
    ok &= one;
    CK(cudaFree(dA));
  }
  // CSR: rows of 0 to 300 entries (some empty, some several warps long).
  {
    const int m = 1001, cols = 5000;
    std::vector<int> rowptr(m + 1, 0);
    auto len = check::random<double>(m, 70, 0, 1);
    for (int r = 0; r < m; ++r)
      rowptr[r + 1] = rowptr[r] + (r % 17 == 0 ? 0 : int(len[r] * len[r] * 300));
    int nnz = rowptr[m];
    auto colf = check::random<double>(nnz, 71, 0, cols);
    std::vector<int> col(nnz);
    for (int i = 0; i < nnz; ++i)
      col[i] = std::min(cols - 1, int(colf[i]));
    auto val = check::random<float>(nnz, 72);
    auto hx = check::random<float>(cols, 73);
    int *dRow = check::upload(rowptr), *dCol = check::upload(col);
    float *dVal = check::upload(val), *dx = check::upload(hx), *dy;
    CK(cudaMalloc(&dy, m * sizeof(float)));
    ok &= checkAll(
        "csr", m, dy, m, orig::row_spmv_csr, v1::row_spmv_csr, v2::row_spmv_csr,
        [&](auto k, unsigned g, unsigned b) { k<<<g, b>>>(dRow, dCol, dVal, dx, dy, m); }, none,
        1e-4, 1e-5);
  }

  // Layer normalisation: per-column weights, broadcast in the original.
  for (int n : {1027, 1024, 9}) {
    const int m = 413;
    auto hX = check::random<float>(size_t(m) * n, 90 + n, -3, 3);
    auto hG = check::random<float>(n, 91, 0.5, 1.5);
    auto hB = check::random<float>(n, 92);
    float *dX = check::upload(hX), *dG = check::upload(hG), *dB = check::upload(hB), *dY;
    CK(cudaMalloc(&dY, size_t(m) * n * sizeof(float)));
    char what[128];
    std::snprintf(what, sizeof what, "layernorm n=%d", n);
    ok &= checkAll(
        what, m, dY, size_t(m) * n, orig::row_layernorm, v1::row_layernorm, v2::row_layernorm,
        [&](auto k, unsigned g, unsigned b) { k<<<g, b>>>(dX, dG, dB, dY, m, n, 1e-5f); }, none,
        1e-4, 1e-5);
    CK(cudaFree(dX));
    CK(cudaFree(dG));
    CK(cudaFree(dB));
    CK(cudaFree(dY));
  }

  // Row argmax / argmin: values from a small set so that most rows have
  // equal maxima in several lanes; exact, positions included.
  for (int n : {1027, 1024, 257, 33, 2, 1}) {
    const int m = 1003;
    auto u = check::random<double>(size_t(m) * n, 100 + n, 0, 1);
    std::vector<float> hX(u.size());
    std::vector<unsigned> hU(u.size());
    for (size_t i = 0; i < u.size(); ++i) {
      hX[i] = float(int(u[i] * 6)) - 2; // -2 .. 3
      hU[i] = unsigned(u[i] * 5) + 7;   // 7 .. 11
      size_t r = i / n;
      if (r % 7 == 3 && i % 5 == 0)
        hX[i] = NAN;
      if (r % 11 == 4)
        hX[i] = i % 2 ? -0.0f : 0.0f;
      if (r % 13 == 5)
        hX[i] = NAN; // no element beats -INFINITY
      if (r % 17 == 6)
        hX[i] = -INFINITY;
    }
    float *dX = check::upload(hX);
    unsigned *dU = check::upload(hU), *dLow;
    int *dAt;
    long long *dPos;
    CK(cudaMalloc(&dAt, m * sizeof(int)));
    CK(cudaMalloc(&dLow, m * sizeof(unsigned)));
    CK(cudaMalloc(&dPos, m * sizeof(long long)));
    char what[128];
    std::snprintf(what, sizeof what, "argmax n=%d", n);
    ok &= checkAll(
        what, m, dAt, m, orig::row_argmax, v1::row_argmax, v2::row_argmax,
        [&](auto k, unsigned g, unsigned b) { k<<<g, b>>>(dX, dAt, m, n); }, none, 0, 0);
    std::snprintf(what, sizeof what, "argmin u32 n=%d", n);
    ok &= checkAll(
        what, m, dPos, m, orig::row_argmin_u32, v1::row_argmin_u32, v2::row_argmin_u32,
        [&](auto k, unsigned g, unsigned b) { k<<<g, b>>>(dU, dLow, dPos, m, n); }, none, 0, 0);
    std::snprintf(what, sizeof what, "argmin u32 value n=%d", n);
    ok &= checkAll(
        what, m, dLow, m, orig::row_argmin_u32, v1::row_argmin_u32, v2::row_argmin_u32,
        [&](auto k, unsigned g, unsigned b) { k<<<g, b>>>(dU, dLow, dPos, m, n); }, none, 0, 0);
    CK(cudaFree(dX));
    CK(cudaFree(dU));
    CK(cudaFree(dAt));
    CK(cudaFree(dLow));
    CK(cudaFree(dPos));
  }

  if (Bench) {
    // Memory-bound sizes: 8192 x 8192 floats (256 MiB) for the product,
    // 8192 x 4096 for the softmax (read twice from L2 or DRAM, written once).
    const int m = 8192, n = 8192;
    auto hA = check::random<float>(size_t(m) * n, 80);
    auto hx = check::random<float>(n, 81);
    float *dA = check::upload(hA), *dx = check::upload(hx), *dy;
    CK(cudaMalloc(&dy, m * sizeof(float)));
    unsigned g = check::ceilDiv(m, 256);
    double t0 = check::time([&] { orig::row_matvec<<<g, 256>>>(dA, dx, dy, m, n); });
    double t1 = check::time([&] { v1::row_matvec<<<g * 32, 256>>>(dA, dx, dy, m, n); });
    double t2 = check::time([&] { v2::row_matvec<<<g * 256, 256>>>(dA, dx, dy, m, n); });
    check::report("matvec 8192^2, warp per row", t0, t1);
    check::report("matvec 8192^2, block per row", t0, t2);
    std::printf("matvec warp per row: %.0f GB/s\n", 4.0 * m * n / t1 / 1e6);
    const int sm = 8192, sn = 4096;
    float *dX, *dY;
    CK(cudaMalloc(&dX, size_t(sm) * sn * sizeof(float)));
    CK(cudaMalloc(&dY, size_t(sm) * sn * sizeof(float)));
    CK(cudaMemcpy(dX, hA.data(), size_t(sm) * sn * sizeof(float), cudaMemcpyHostToDevice));
    g = check::ceilDiv(sm, 256);
    t0 = check::time([&] { orig::row_softmax<<<g, 256>>>(dX, dY, sm, sn); });
    t1 = check::time([&] { v1::row_softmax<<<g * 32, 256>>>(dX, dY, sm, sn); });
    t2 = check::time([&] { v2::row_softmax<<<g * 256, 256>>>(dX, dY, sm, sn); });
    check::report("softmax 8192x4096, warp per row", t0, t1);
    check::report("softmax 8192x4096, block per row", t0, t2);
    std::printf("softmax warp per row: %.0f GB/s (one read, one write)\n",
                8.0 * sm * sn / t1 / 1e6);
  }
  std::printf("%s\n", ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
