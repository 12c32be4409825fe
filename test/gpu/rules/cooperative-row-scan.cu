// cooperative-row's row scans compute what the originals compute, on the
// GPU: each kernel of Inputs/rules/row_scans.cu (an inclusive and an
// exclusive float sum, a running max through row pointers, an int sum with
// the row total, an unsigned xor walked by a while loop, a double running
// min and product with size_t indices) against its rewrite (the first
// proposal, a warp per row) on the grid the SpecChange asks for (32 x the
// original), for blocks of 32, 128, 256 and 1024 threads, and a block of 100,
// where the device check falls back to the original body. Row lengths that
// are not multiples of 4 or 32 (so only some rows are 16-byte aligned and the
// last step of a row has fewer than 32 lanes), shorter than a warp, and
// pointers offset by one element (no row aligned); odd row counts. Float
// sums and products within rounding (the scan re-associates them), max, min,
// and the integer scans exactly. With --bench: the inclusive float sum at
// 65536 x 1024.
// REQUIRES: gpu, cuda
// RUN: rm -rf %t.d && mkdir -p %t.d && cp %S/../Inputs/rules/row_scans.cu %t.d/a0.cu
// RUN: forge-port propose %t.d/a0.cu --kernel row_cumsum --block 256 --rules=cooperative-row --format=json > %t.d/p0.json
// RUN: %python %S/../../Inputs/apply_proposal.py %t.d/p0.json 0 %t.d/a0.cu > %t.d/a1.cu
// RUN: forge-port propose %t.d/a1.cu --kernel row_cumsum_excl --block 256 --rules=cooperative-row --format=json > %t.d/p1.json
// RUN: %python %S/../../Inputs/apply_proposal.py %t.d/p1.json 0 %t.d/a1.cu > %t.d/a2.cu
// RUN: forge-port propose %t.d/a2.cu --kernel row_runmax --block 256 --rules=cooperative-row --format=json > %t.d/p2.json
// RUN: %python %S/../../Inputs/apply_proposal.py %t.d/p2.json 0 %t.d/a2.cu > %t.d/a3.cu
// RUN: forge-port propose %t.d/a3.cu --kernel row_cumsum_int --block 256 --rules=cooperative-row --format=json > %t.d/p3.json
// RUN: %python %S/../../Inputs/apply_proposal.py %t.d/p3.json 0 %t.d/a3.cu > %t.d/a4.cu
// RUN: forge-port propose %t.d/a4.cu --kernel row_xor_while --block 256 --rules=cooperative-row --format=json > %t.d/p4.json
// RUN: %python %S/../../Inputs/apply_proposal.py %t.d/p4.json 0 %t.d/a4.cu > %t.d/a5.cu
// RUN: forge-port propose %t.d/a5.cu --kernel row_min_prod_f64 --block 256 --rules=cooperative-row --format=json > %t.d/p5.json
// RUN: %python %S/../../Inputs/apply_proposal.py %t.d/p5.json 0 %t.d/a5.cu > %t.d/row_scans.v1.cu
// RUN: %nvcc -arch=native -O3 -I%S/../Inputs/rules -I%t.d %s -o %t.d/check
// RUN: %t.d/check | FileCheck %s --implicit-check-not=MISMATCH --implicit-check-not=FAIL
// CHECK: cumsum n=1027 rows=1001 block=256: ok
// CHECK: cumsum n=1027 rows=1001 block=100: ok
// CHECK: runmax n=1027 rows=1001 block=128: ok max_abs_err 0 rel_l2 0
// CHECK: cumsum n=1024 in+1 out+1 rows=1001 block=32: ok
// CHECK: cumsum excl n=29 rows=1001 block=1024: ok
// CHECK: cumsum int n=1027 rows=1001 block=256: ok max_abs_err 0 rel_l2 0
// CHECK: total cumsum int n=1027 rows=1001 block=256: ok max_abs_err 0 rel_l2 0
// CHECK: xor while n=1027 rows=1001 block=256: ok max_abs_err 0 rel_l2 0
// CHECK: min f64 n=1027 rows=333 block=256: ok max_abs_err 0 rel_l2 0
// CHECK: prod f64 n=1027 rows=333 block=256: ok
// CHECK: PASS
#include "check.h"

namespace orig {
#include "row_scans.cu"
} // namespace orig
namespace v1 {
#include "row_scans.v1.cu"
} // namespace v1

namespace {

const unsigned Blocks[] = {256, 128, 1024, 32, 100};

/// Runs Launch(kernel, grid, block) for the original on its grid and for the
/// rewrite on 32 times that grid, for every block size, and compares the
/// downloads of each output (poisoned before every launch); the second
/// output of an int scan is the row totals.
template <typename T, typename Orig, typename V1, typename Launch>
bool checkAll(const char *what, unsigned rows, Orig o, V1 a, Launch launch, double maxAbs,
              double relL2, std::vector<std::pair<T *, size_t>> outs) {
  bool ok = true;
  for (unsigned B : Blocks) {
    unsigned grid = check::ceilDiv(rows, B);
    auto run = [&](auto kernel, unsigned g) {
      for (auto &[p, n] : outs)
        check::poison(p, n);
      launch(kernel, g, B);
      CK(cudaGetLastError());
      CK(cudaDeviceSynchronize());
      std::vector<std::vector<T>> got;
      for (auto &[p, n] : outs)
        got.push_back(check::download(p, n));
      return got;
    };
    auto ref = run(o, grid);
    auto got = run(a, grid * 32);
    for (size_t i = 0; i < outs.size(); ++i) {
      char name[256];
      std::snprintf(name, sizeof name, "%s%s rows=%u block=%u", i ? "total " : "", what, rows, B);
      ok &= check::compare(name, ref[i], got[i], maxAbs, relL2);
    }
  }
  return ok;
}

} // namespace

int main(int argc, char **argv) {
  bool Bench = check::bench(argc, argv);
  bool ok = true;

  // Float sums, inclusive and exclusive: odd and even row lengths, rows
  // shorter than a warp, offset pointers.
  {
    struct Case {
      int n, off;
    };
    const Case Cases[] = {{1027, 0}, {1024, 0}, {1024, 1}, {29, 0}, {1, 0}, {131, 1}};
    const int m = 1001;
    for (const Case &C : Cases) {
      size_t N = size_t(m) * C.n + 1;
      auto hIn = check::random<float>(N, 10 + C.n);
      auto hB = check::random<float>(m, 11 + C.n);
      float *dIn = check::upload(hIn), *dB = check::upload(hB), *dOut;
      CK(cudaMalloc(&dOut, N * sizeof(float)));
      const float *in = dIn + C.off;
      float *out = dOut + C.off;
      size_t n = size_t(m) * C.n;
      char what[128];
      std::snprintf(what, sizeof what, "cumsum n=%d%s", C.n, C.off ? " in+1 out+1" : "");
      ok &= checkAll<float>(
          what, m, orig::row_cumsum, v1::row_cumsum,
          [&](auto k, unsigned g, unsigned b) { k<<<g, b>>>(in, out, m, C.n); }, 1e-3, 1e-5,
          {{out, n}});
      std::snprintf(what, sizeof what, "cumsum excl n=%d%s", C.n, C.off ? " in+1 out+1" : "");
      ok &= checkAll<float>(
          what, m, orig::row_cumsum_excl, v1::row_cumsum_excl,
          [&](auto k, unsigned g, unsigned b) { k<<<g, b>>>(in, dB, out, m, C.n); }, 1e-3, 1e-5,
          {{out, n}});
      std::snprintf(what, sizeof what, "runmax n=%d%s", C.n, C.off ? " in+1 out+1" : "");
      ok &= checkAll<float>(
          what, m, orig::row_runmax, v1::row_runmax,
          [&](auto k, unsigned g, unsigned b) { k<<<g, b>>>(in, out, m, C.n); }, 0, 0,
          {{out, n}});
      CK(cudaFree(dIn));
      CK(cudaFree(dB));
      CK(cudaFree(dOut));
    }
  }
  // Integer scans: exact.
  for (int n : {1027, 1024, 33, 3}) {
    for (int off : {0, 1}) {
      const int m = 1001;
      size_t N = size_t(m) * n + 1;
      std::vector<int> hI(N);
      std::vector<unsigned> hU(N);
      for (size_t i = 0; i < N; ++i) {
        hI[i] = int((i * 2654435761u) % 2001) - 1000;
        hU[i] = unsigned(i * 2246822519u + 374761393u);
      }
      int *dI = check::upload(hI), *dOut, *dTot;
      unsigned *dU = check::upload(hU), *dX;
      CK(cudaMalloc(&dOut, N * sizeof(int)));
      CK(cudaMalloc(&dTot, m * sizeof(int)));
      CK(cudaMalloc(&dX, N * sizeof(unsigned)));
      const int *in = dI + off;
      int *out = dOut + off;
      const unsigned *uin = dU + off;
      unsigned *x = dX + off;
      size_t cnt = size_t(m) * n;
      char what[128];
      std::snprintf(what, sizeof what, "cumsum int n=%d%s", n, off ? " in+1 out+1" : "");
      ok &= checkAll<int>(
          what, m, orig::row_cumsum_int, v1::row_cumsum_int,
          [&](auto k, unsigned g, unsigned b) { k<<<g, b>>>(in, out, dTot, m, n); }, 0, 0,
          {{out, cnt}, {dTot, size_t(m)}});
      std::snprintf(what, sizeof what, "xor while n=%d%s", n, off ? " in+1 out+1" : "");
      ok &= checkAll<unsigned>(
          what, m, orig::row_xor_while, v1::row_xor_while,
          [&](auto k, unsigned g, unsigned b) { k<<<g, b>>>(uin, x, m, n); }, 0, 0,
          {{x, cnt}});
      CK(cudaFree(dI));
      CK(cudaFree(dU));
      CK(cudaFree(dOut));
      CK(cudaFree(dTot));
      CK(cudaFree(dX));
    }
  }
  // Doubles with size_t indices: the running min exactly, the product (of
  // values near 1, so it neither vanishes nor overflows) within rounding.
  for (size_t n : {size_t(1027), size_t(2048), size_t(7)}) {
    const size_t m = 333;
    auto h = check::random<double>(m * n, 30 + unsigned(n), 0.9, 1.1);
    double *dIn = check::upload(h), *dLo, *dP;
    CK(cudaMalloc(&dLo, m * n * sizeof(double)));
    CK(cudaMalloc(&dP, m * n * sizeof(double)));
    char what[128];
    std::snprintf(what, sizeof what, "min f64 n=%zu", n);
    auto launch = [&](auto k, unsigned g, unsigned b) { k<<<g, b>>>(dIn, dLo, dP, m, n); };
    ok &= checkAll<double>(what, unsigned(m), orig::row_min_prod_f64, v1::row_min_prod_f64,
                           launch, 0, 0, {{dLo, m * n}});
    std::snprintf(what, sizeof what, "prod f64 n=%zu", n);
    ok &= checkAll<double>(what, unsigned(m), orig::row_min_prod_f64, v1::row_min_prod_f64,
                           launch, 1e-9, 1e-12, {{dP, m * n}});
    CK(cudaFree(dIn));
    CK(cudaFree(dLo));
    CK(cudaFree(dP));
  }

  if (Bench) {
    // 65536 x 1024 floats (256 MiB read, 256 MiB written).
    const int m = 65536, n = 1024;
    auto h = check::random<float>(size_t(m) * n, 80);
    float *dIn = check::upload(h), *dOut;
    CK(cudaMalloc(&dOut, size_t(m) * n * sizeof(float)));
    unsigned g = check::ceilDiv(m, 256);
    double t0 = check::time([&] { orig::row_cumsum<<<g, 256>>>(dIn, dOut, m, n); });
    double t1 = check::time([&] { v1::row_cumsum<<<g * 32, 256>>>(dIn, dOut, m, n); });
    check::report("row cumsum 65536x1024, warp per row", t0, t1);
    std::printf("row cumsum warp per row: %.0f GB/s (one read, one write)\n",
                8.0 * m * n / t1 / 1e6);
    CK(cudaFree(dIn));
    CK(cudaFree(dOut));
  }
  std::printf("%s\n", ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
