// The accumulator-promotion rule's rewrites compute bitwise what the
// originals compute, on the GPU (the register does the same operations in
// the same order): a float matrix product pre-zeroed before its loop (odd
// sizes, 16x16 and 32x8 blocks, K = 0 and K = 1), a float matrix-vector
// product into a y the host pre-sets (the load before the loop; n = 0, so
// the loop runs no iteration and the store writes back what it loaded), an
// int count under a condition the loop does not change, with a break
// (enabled and not), a 3x3 convolution under #pragma unroll (the border
// untouched), and a double dot product through locals whose running value
// is read in the loop (a 2D grid of batches). Outputs start from the same
// random values before each run and are compared bit for bit. With
// --bench: times of the matrix product and the matrix-vector product.
// REQUIRES: gpu, cuda
// RUN: rm -rf %t.d && mkdir -p %t.d
// RUN: forge-port propose %S/../Inputs/rules/accumulate_in_memory.cu --kernel acc_matmul --assume-no-alias --rules=accumulator-promotion --format=json > %t.d/matmul.json
// RUN: %python %S/../../Inputs/apply_proposal.py %t.d/matmul.json 0 %S/../Inputs/rules/accumulate_in_memory.cu > %t.d/acc.1.cu
// RUN: forge-port propose %t.d/acc.1.cu --kernel acc_matvec --assume-no-alias --rules=accumulator-promotion --format=json > %t.d/matvec.json
// RUN: %python %S/../../Inputs/apply_proposal.py %t.d/matvec.json 0 %t.d/acc.1.cu > %t.d/acc.2.cu
// RUN: forge-port propose %t.d/acc.2.cu --kernel acc_count --assume-no-alias --rules=accumulator-promotion --format=json > %t.d/count.json
// RUN: %python %S/../../Inputs/apply_proposal.py %t.d/count.json 0 %t.d/acc.2.cu > %t.d/acc.3.cu
// RUN: forge-port propose %t.d/acc.3.cu --kernel acc_conv3x3 --assume-no-alias --rules=accumulator-promotion --format=json > %t.d/conv.json
// RUN: %python %S/../../Inputs/apply_proposal.py %t.d/conv.json 0 %t.d/acc.3.cu > %t.d/acc.4.cu
// RUN: forge-port propose %t.d/acc.4.cu --kernel acc_dot --assume-no-alias --rules=accumulator-promotion --format=json > %t.d/dot.json
// RUN: %python %S/../../Inputs/apply_proposal.py %t.d/dot.json 0 %t.d/acc.4.cu > %t.d/accumulate_in_memory.v1.cu
// The rewrites keep the running values in registers:
// RUN: FileCheck %s --check-prefix=REWRITE --input-file=%t.d/accumulate_in_memory.v1.cu
// REWRITE: float acc = 0;
// REWRITE: C[row * N + col] = acc;
// REWRITE: float acc = y[row];
// REWRITE: y[row] = acc;
// REWRITE: if (enabled) acc = count[i];
// REWRITE: if (enabled) count[i] = acc;
// REWRITE: float acc = 0.f;
// REWRITE: out[y * width + x] = acc;
// REWRITE: double acc = 0.5;
// REWRITE: out[idx] = acc;
// RUN: %nvcc -arch=native -O3 -I%S/../Inputs/rules -I%t.d %s -o %t.d/check
// RUN: %t.d/check | FileCheck %s --implicit-check-not=MISMATCH --implicit-check-not=FAIL
// CHECK: matmul 129x257x67 block=16x16: ok max_abs_err 0 rel_l2 0
// CHECK: matmul 129x257x67 block=32x8: ok max_abs_err 0 rel_l2 0
// CHECK: matmul 33x17x1 block=16x16: ok max_abs_err 0 rel_l2 0
// CHECK: matmul 33x17x0 block=16x16: ok max_abs_err 0 rel_l2 0
// CHECK: matvec m=1027 n=1031 block=256: ok max_abs_err 0 rel_l2 0
// CHECK: matvec m=1027 n=1031 block=100: ok max_abs_err 0 rel_l2 0
// CHECK: matvec m=1027 n=0 block=256: ok max_abs_err 0 rel_l2 0
// CHECK: count enabled=1: ok max_abs_err 0 rel_l2 0
// CHECK: count enabled=0: ok max_abs_err 0 rel_l2 0
// CHECK: conv3x3 301x207 block=16x16: ok max_abs_err 0 rel_l2 0
// CHECK: conv3x3 301x207 block=32x4: ok max_abs_err 0 rel_l2 0
// CHECK: dot n=1027 len=77 batches=3: ok max_abs_err 0 rel_l2 0
// CHECK: dot peak: ok max_abs_err 0 rel_l2 0
// CHECK: PASS
#include "check.h"
#include <string>

namespace orig {
#include "accumulate_in_memory.cu"
} // namespace orig
namespace v1 {
#include "accumulate_in_memory.v1.cu"
} // namespace v1

namespace {

/// Runs Launch(false) (the original) and Launch(true) (the rewrite), each
/// with Out reset to Init first, and compares the results bit for bit (and
/// as numbers, for the printed line).
template <typename T, typename Launch>
bool runBoth(const std::string &what, T *Out, const std::vector<T> &Init, Launch launch) {
  auto run = [&](bool rewritten) {
    CK(cudaMemcpy(Out, Init.data(), Init.size() * sizeof(T), cudaMemcpyHostToDevice));
    launch(rewritten);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    return check::download(Out, Init.size());
  };
  auto ref = run(false);
  auto got = run(true);
  bool ok = check::compare(what.c_str(), ref, got, 0, 0);
  if (std::memcmp(ref.data(), got.data(), ref.size() * sizeof(T)) != 0) {
    std::printf("%s: MISMATCH in the bits\n", what.c_str());
    ok = false;
  }
  return ok;
}

} // namespace

int main(int argc, char **argv) {
  bool Bench = check::bench(argc, argv);
  bool ok = true;

  // Matrix product, C pre-zeroed in the kernel.
  {
    struct Case {
      int M, N, K;
      dim3 block;
    };
    const Case Cases[] = {{129, 257, 67, dim3(16, 16)},
                          {129, 257, 67, dim3(32, 8)},
                          {33, 17, 1, dim3(16, 16)},
                          {33, 17, 0, dim3(16, 16)}};
    for (const Case &C : Cases) {
      auto hA = check::random<float>(size_t(C.M) * C.K + 1, 1);
      auto hB = check::random<float>(size_t(C.K) * C.N + 1, 2);
      auto hC = check::random<float>(size_t(C.M) * C.N, 3);
      float *A = check::upload(hA), *B = check::upload(hB), *Cd = check::upload(hC);
      dim3 grid(check::ceilDiv(C.N, C.block.x), check::ceilDiv(C.M, C.block.y));
      char what[96];
      std::snprintf(what, sizeof what, "matmul %dx%dx%d block=%ux%u", C.M, C.N, C.K, C.block.x,
                    C.block.y);
      ok &= runBoth(what, Cd, hC, [&](bool v) {
        if (v)
          v1::acc_matmul<<<grid, C.block>>>(A, B, Cd, C.M, C.N, C.K);
        else
          orig::acc_matmul<<<grid, C.block>>>(A, B, Cd, C.M, C.N, C.K);
      });
      CK(cudaFree(A));
      CK(cudaFree(B));
      CK(cudaFree(Cd));
    }
    if (Bench) {
      const int M = 2048, N = 2048, K = 2048;
      float *A = check::upload(check::random<float>(size_t(M) * K, 4));
      float *B = check::upload(check::random<float>(size_t(K) * N, 5));
      float *Cd = check::upload(check::random<float>(size_t(M) * N, 6));
      dim3 block(16, 16), grid(N / 16, M / 16);
      double t0 = check::time([&] { orig::acc_matmul<<<grid, block>>>(A, B, Cd, M, N, K); });
      double t1 = check::time([&] { v1::acc_matmul<<<grid, block>>>(A, B, Cd, M, N, K); });
      check::report("matmul 2048^3", t0, t1);
    }
  }

  // Matrix-vector product into a pre-set y (the rewrite loads it first).
  {
    struct Case {
      int m, n;
      unsigned block;
    };
    const Case Cases[] = {{1027, 1031, 256}, {1027, 1031, 100}, {1027, 0, 256}};
    for (const Case &C : Cases) {
      auto hA = check::random<float>(size_t(C.m) * C.n + 1, 7);
      auto hx = check::random<float>(size_t(C.n) + 1, 8);
      auto hy = check::random<float>(size_t(C.m), 9);
      float *A = check::upload(hA), *x = check::upload(hx), *y = check::upload(hy);
      unsigned grid = check::ceilDiv(C.m, C.block);
      char what[96];
      std::snprintf(what, sizeof what, "matvec m=%d n=%d block=%u", C.m, C.n, C.block);
      ok &= runBoth(what, y, hy, [&](bool v) {
        if (v)
          v1::acc_matvec<<<grid, C.block>>>(A, x, y, C.m, C.n);
        else
          orig::acc_matvec<<<grid, C.block>>>(A, x, y, C.m, C.n);
      });
      CK(cudaFree(A));
      CK(cudaFree(x));
      CK(cudaFree(y));
    }
    if (Bench) {
      const int m = 16384, n = 4096;
      float *A = check::upload(check::random<float>(size_t(m) * n, 10));
      float *x = check::upload(check::random<float>(size_t(n), 11));
      float *y = check::upload(check::random<float>(size_t(m), 12));
      double t0 = check::time([&] { orig::acc_matvec<<<m / 256, 256>>>(A, x, y, m, n); });
      double t1 = check::time([&] { v1::acc_matvec<<<m / 256, 256>>>(A, x, y, m, n); });
      check::report("matvec 16384x4096", t0, t1);
    }
  }

  // A count under a loop-invariant condition, with a break.
  {
    const int n = 1027, len = 301;
    std::vector<int> hv(size_t(n) * len);
    auto r = check::random<float>(hv.size(), 13);
    for (size_t i = 0; i < hv.size(); ++i)
      hv[i] = int(r[i] * 50); // -49 .. 49; 7 is the stop value
    std::vector<int> hc(n);
    for (int i = 0; i < n; ++i)
      hc[i] = i % 13;
    int *v = check::upload(hv), *c = check::upload(hc);
    for (int enabled : {1, 0}) {
      char what[64];
      std::snprintf(what, sizeof what, "count enabled=%d", enabled);
      ok &= runBoth(what, c, hc, [&](bool rw) {
        if (rw)
          v1::acc_count<<<check::ceilDiv(n, 128), 128>>>(v, c, n, len, enabled, 7);
        else
          orig::acc_count<<<check::ceilDiv(n, 128), 128>>>(v, c, n, len, enabled, 7);
      });
    }
    CK(cudaFree(v));
    CK(cudaFree(c));
  }

  // A 3x3 convolution; the border keeps its initial values.
  {
    const int W = 301, H = 207;
    auto hin = check::random<float>(size_t(W) * H, 14);
    auto hw = check::random<float>(9, 15);
    auto hout = check::random<float>(size_t(W) * H, 16);
    float *in = check::upload(hin), *w = check::upload(hw), *out = check::upload(hout);
    for (dim3 b : {dim3(16, 16), dim3(32, 4)}) {
      dim3 grid(check::ceilDiv(W, b.x), check::ceilDiv(H, b.y));
      char what[64];
      std::snprintf(what, sizeof what, "conv3x3 %dx%d block=%ux%u", W, H, b.x, b.y);
      ok &= runBoth(what, out, hout, [&](bool v) {
        if (v)
          v1::acc_conv3x3<<<grid, b>>>(in, w, out, W, H);
        else
          orig::acc_conv3x3<<<grid, b>>>(in, w, out, W, H);
      });
    }
    CK(cudaFree(in));
    CK(cudaFree(w));
    CK(cudaFree(out));
  }

  // A double dot product per column of each batch, its running maximum kept
  // in peak (which reads the running value in the loop).
  {
    const int n = 1027, len = 77, batches = 3;
    auto ha = check::random<double>(size_t(batches) * len * n, 17);
    auto hb = check::random<double>(size_t(len), 18);
    auto hout = check::random<double>(size_t(batches) * n, 19);
    auto hpeak = check::random<double>(size_t(batches) * n, 20, -4, -3);
    double *a = check::upload(ha), *b = check::upload(hb), *out = check::upload(hout),
           *peak = check::upload(hpeak);
    dim3 grid(check::ceilDiv(n, 128), batches);
    std::vector<double> peaks[2];
    auto launch = [&](bool v) {
      CK(cudaMemcpy(peak, hpeak.data(), hpeak.size() * sizeof(double), cudaMemcpyHostToDevice));
      if (v)
        v1::acc_dot<<<grid, 128>>>(a, b, out, peak, n, len);
      else
        orig::acc_dot<<<grid, 128>>>(a, b, out, peak, n, len);
      CK(cudaDeviceSynchronize());
      peaks[v] = check::download(peak, hpeak.size());
    };
    ok &= runBoth("dot n=1027 len=77 batches=3", out, hout, launch);
    ok &= check::compare("dot peak", peaks[0], peaks[1], 0, 0);
    if (std::memcmp(peaks[0].data(), peaks[1].data(), peaks[0].size() * sizeof(double)) != 0) {
      std::printf("dot peak: MISMATCH in the bits\n");
      ok = false;
    }
  }

  std::printf("%s\n", ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
