// GPU check of a gemm sample against a CPU reference (test/gpu/templates/
// check.py compiles this with the sample's macros; see README.md there).
// C = alpha * op(A) * op(B) + beta * C, row-major, FORGE_BATCH products of
// FORGE_S0 x FORGE_S1 x FORGE_S2 (M x N x K), op = transpose where
// FORGE_TRANSA / FORGE_TRANSB. Two runs of the sample's host wrapper:
//   1. the allocations' own (aligned) pointers, alpha 1, beta 0, C holding
//      NaN: C must not be read;
//   2. every pointer one element in (misaligned for 16-byte accesses),
//      alpha -0.75, beta 0.5, C random.
// Every element is compared when the products hold at most 2^28
// multiply-adds (the small samples); otherwise 4096 random elements and the
// tiles' corners. The elements around C (before it in run 2, after it in
// both) must be untouched.
//
// Tolerance: the reference is a long double dot product; an element passes
// when |got - want| <= 8 * eps * (sqrt(K) * |alpha| * sum_k |a_k b_k|
// + |beta c|), eps the element type's. A float sum of K products drifts by
// about sqrt(K) * eps * the size of its terms; a missing or doubled term
// (|a b| ~ 0.25 on average) is far above the bound (about 0.02 at K = 2048
// in f32).
//
// tf32 (FORGE_LOWP with float: the tensor-core kernel) adds the rounding of
// the inputs to tf32 (cvt.rna, relative error at most u = 2^-11 each): term
// k is off by a_k b_k (d_a + d_b), the d independent, |d| <= u, mean
// square at most u^2 / 3, so the error of an element is a sum of K such
// terms with standard deviation at most sqrt(2/3) u sqrt(sum_k (a_k b_k)^2).
// The bound adds 8 u |alpha| sqrt(sum_k (a_k b_k)^2): 10 such deviations, and
// for K <= 16 above the worst case 2 u sum_k |a_k b_k| too. It grows like
// sqrt(K) (0.015 at K = 130, 0.043 at K = 1024 for inputs in [-1, 1]), so
// a missing term (|a b| ~ 0.25) still fails most elements; a wrong
// fragment layout or a missing k step fails nearly all of them. The f32
// part of the bound stays for the sums in f32. And some element must be
// off by more than 64 * eps * sqrt(K) * |alpha| * sqrt(sum_k (a_k b_k)^2)
// (+ 8 eps |beta c|), far beyond what sums in f32 give, else the sample
// did not run the tf32 kernel. On a CPU model of both (inputs in [-1, 1],
// alpha -0.75, beta 0.5): f32 sums put no element there at K = 51 to 4096;
// tf32 puts 74 % (K = 130), 35 % (K = 1024) and 6 % (K = 4096) there,
// and its largest error was 0.29 of the bound.
//
// f16 and bf16 (the tensor-core kernel: A, B and C of that type, alpha and
// beta float): the inputs are drawn uniform in [-1, 1] and rounded to T, the
// reference is the long double dot product of those rounded values, and
// the kernel's products of two of them are exact in f32; its sums are f32
// (the bound above with f32's eps, doubled) and the result is rounded once
// to T, which adds at most u |c| (u = 2^-11 for f16, 2^-8 for bf16): the
// bound is 2 * (the f32 bound) + u |want| (+ 2^-24, f16's smallest
// subnormal, for results near 0). A missing k term (|a b| ~ 0.25) is far
// above u |want| (about 0.03 at K = 1024 for f16, 0.25 for bf16, whose
// elements are about sqrt(K / 9) large), so it fails most elements.
#include FORGE_SAMPLE_FILE
#include "check_common.h"
#include <cstring>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

typedef FORGE_T T;

#ifndef FORGE_TRANSA
#define FORGE_TRANSA 0
#endif
#ifndef FORGE_TRANSB
#define FORGE_TRANSB 0
#endif
#ifndef FORGE_LOWP
#define FORGE_LOWP 0
#endif

namespace {

const long long M = FORGE_S0, N = FORGE_S1, K = FORGE_S2, BATCH = FORGE_BATCH;

// The 16-bit types: values through float, the wrapper's alpha and beta
// float; the others: themselves.
constexpr bool HALF =
    std::is_same<T, __half>::value || std::is_same<T, __nv_bfloat16>::value;
typedef typename std::conditional<HALF, float, T>::type S;
double toD(float x) { return x; }
double toD(double x) { return x; }
double toD(__half x) { return (double)__half2float(x); }
double toD(__nv_bfloat16 x) { return (double)__bfloat162float(x); }
template <typename U> U fromD(double d) { return (U)d; }
template <> __half fromD<__half>(double d) { return __float2half_rn((float)d); }
template <> __nv_bfloat16 fromD<__nv_bfloat16>(double d) {
  return __float2bfloat16_rn((float)d);
}
/// Uniform in [-1, 1), rounded to T (check_common.h's fill takes the 16-bit
/// types for integers).
void fillT(std::vector<T> &v, unsigned seed) {
  std::mt19937_64 g(seed);
  for (auto &x : v)
    x = fromD<T>(std::uniform_real_distribution<double>(-1.0, 1.0)(g));
}
/// The unit roundoff of T's storage: what rounding the result to T adds.
double storeU() {
  if (std::is_same<T, __half>::value)
    return std::ldexp(1.0, -11);
  if (std::is_same<T, __nv_bfloat16>::value)
    return std::ldexp(1.0, -8);
  return 0;
}

/// op(A)[b][m][k] and op(B)[b][k][n] in the row-major storage.
T opA(const T *A, long long b, long long m, long long k) {
  return FORGE_TRANSA ? A[b * M * K + k * M + m] : A[b * M * K + m * K + k];
}
T opB(const T *B, long long b, long long k, long long n) {
  return FORGE_TRANSB ? B[b * K * N + n * K + k] : B[b * K * N + k * N + n];
}

struct Element {
  long long b, m, n;
};

/// The elements to compare: all of them, or a random subset plus the
/// corners of every product and of the 128 x 128 tiles along the diagonal.
std::vector<Element> elementsToCheck() {
  std::vector<Element> E;
  if (BATCH * M * N * K <= (1ll << 28)) {
    for (long long b = 0; b < BATCH; ++b)
      for (long long m = 0; m < M; ++m)
        for (long long n = 0; n < N; ++n)
          E.push_back({b, m, n});
    return E;
  }
  std::mt19937_64 g(7);
  for (int i = 0; i < 4096; ++i)
    E.push_back({(long long)(g() % BATCH), (long long)(g() % M), (long long)(g() % N)});
  for (long long b : {0ll, BATCH - 1})
    for (long long t = 0; t < M && t < N; t += 128)
      for (long long dm : {0ll, 127ll})
        for (long long dn : {0ll, 127ll})
          E.push_back({b, t + dm < M ? t + dm : M - 1, t + dn < N ? t + dn : N - 1});
  E.push_back({BATCH - 1, M - 1, N - 1});
  return E;
}

bool run(int offset, S alpha, S beta, bool nanC, const char *what) {
  const long long na = BATCH * M * K, nb = BATCH * K * N, nc = BATCH * M * N;
  // One spare element after each matrix (and one before, at offset 1).
  std::vector<T> a(na + 2), b(nb + 2), c0(nc + 2);
  fillT(a, 11);
  fillT(b, 12);
  fillT(c0, 13);
  forge_check::DeviceBuffer<T> da(a), db(b), dc(nc + 2);
  if (!nanC)
    FORGE_CHECK_CUDA(cudaMemcpy(dc.get(), c0.data(), (nc + 2) * sizeof(T), cudaMemcpyHostToDevice));
  else
    c0 = dc.read(); // NaN bytes (0xff) from DeviceBuffer
#if FORGE_BATCH > 1
  FORGE_CHECK_CUDA(FORGE_WRAPPER(da.get() + offset, db.get() + offset, dc.get() + offset, (int)M,
                                 (int)N, (int)K, (int)BATCH, alpha, beta));
#else
  FORGE_CHECK_CUDA(FORGE_WRAPPER(da.get() + offset, db.get() + offset, dc.get() + offset, (int)M,
                                 (int)N, (int)K, alpha, beta));
#endif
  FORGE_CHECK_CUDA(cudaDeviceSynchronize());
  std::vector<T> c = dc.read();

  // The sums' epsilon (f32 for the 16-bit types) and the final rounding's.
  const double eps =
      HALF ? (double)std::numeric_limits<float>::epsilon() : (double)std::numeric_limits<S>::epsilon();
  const double uStore = storeU();
  // tf32: the tensor-core kernel (f64 ignores FORGE_LOWP).
  const bool tf32 = FORGE_LOWP && sizeof(T) == 4;
  const double u = std::ldexp(1.0, -11);
  const T *A = a.data() + offset, *B = b.data() + offset;
  const T *C0 = c0.data() + offset, *C = c.data() + offset;
  size_t bad = 0, checked = 0, showsTf32 = 0;
  double worst = 0; // the largest error relative to its bound
  for (const Element &e : elementsToCheck()) {
    long double dot = 0, mag = 0, sq = 0;
    for (long long k = 0; k < K; ++k) {
      long double p = (long double)toD(opA(A, e.b, e.m, k)) * (long double)toD(opB(B, e.b, k, e.n));
      dot += p;
      mag += p < 0 ? -p : p;
      sq += p * p;
    }
    const long long i = e.b * M * N + e.m * N + e.n;
    const double old = beta == (S)0 ? 0.0 : toD(C0[i]);
    const double want = (double)((long double)alpha * dot + (long double)beta * old);
    const double f32bound = 8 * eps *
                                (std::sqrt((double)K) * std::fabs((double)alpha) * (double)mag +
                                 std::fabs((double)beta * old)) +
                            1e-30;
    const double bound =
        HALF ? 2 * f32bound + uStore * std::fabs(want) + std::ldexp(1.0, -24)
             : f32bound + (tf32 ? 8 * u * std::fabs((double)alpha) * std::sqrt((double)sq) : 0.0);
    const double got = toD(C[i]);
    const double err = std::fabs(got - want);
    if (err > 64 * eps * std::sqrt((double)K) * std::fabs((double)alpha) * std::sqrt((double)sq) +
                  8 * eps * std::fabs((double)beta * old))
      ++showsTf32;
    ++checked;
    if (!(err <= bound)) { // NaN fails too
      if (bad++ < 5)
        std::printf("  %s: C[%lld][%lld][%lld] = %.9g, want %.9g (error %.3g, bound %.3g)\n",
                    what, e.b, e.m, e.n, got, want, err, bound);
    } else if (err / bound > worst) {
      worst = err / bound;
    }
  }
  // The elements around C keep their bytes.
  for (long long j : {0ll, nc + 1}) {
    if (j == 0 && offset == 0)
      continue;
    const long long at = j == 0 ? 0 : offset + nc;
    if (std::memcmp(&c[at], &c0[at], sizeof(T)) != 0) {
      if (bad++ < 5)
        std::printf("  %s: the element %s C was written\n", what, j == 0 ? "before" : "after");
    }
  }
  if (tf32 && showsTf32 == 0 && alpha != (S)0 && K > 1) {
    std::printf("  %s: no element shows tf32's rounding: not the tf32 kernel?\n", what);
    ++bad;
  }
  if (bad) {
    std::printf("FAIL %s (%s): %zu of %zu checked elements wrong\n", FORGE_STR(FORGE_WRAPPER),
                what, bad, checked);
    return false;
  }
  std::printf("  %s: %zu elements within the bound (the largest error %.3f of it)", what,
              checked, worst);
  if (tf32)
    std::printf("; %zu show tf32's rounding", showsTf32);
  std::printf("\n");
  return true;
}

} // namespace

int main() {
  if (!run(0, (S)1, (S)0, true, "aligned, beta 0, C NaN"))
    return 1;
  if (!run(1, (S)-0.75, (S)0.5, false, "misaligned, alpha -0.75, beta 0.5"))
    return 1;
  return forge_check::pass();
}
