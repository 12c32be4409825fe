// Helpers for the GPU checks of the restructuring rules (test/gpu/rules/):
// each check compiles the original kernel (orig.cu) and the rule's rewrite
// (cand.cu) into one program, in two namespaces, runs both on the same
// random inputs and compares. With --bench it also times both (median of
// 20 launches, CUDA events, L2 flushed before each).
#pragma once
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define CK(call)                                                                   \
  do {                                                                             \
    cudaError_t e_ = (call);                                                       \
    if (e_ != cudaSuccess) {                                                       \
      std::printf("FAIL: %s:%d: %s: %s\n", __FILE__, __LINE__, #call,              \
                  cudaGetErrorString(e_));                                         \
      std::exit(1);                                                                \
    }                                                                              \
  } while (0)

namespace check {

inline bool bench(int argc, char **argv) {
  for (int i = 1; i < argc; ++i)
    if (!std::strcmp(argv[i], "--bench"))
      return true;
  return false;
}

/// Uniform values in [lo, hi), from a fixed seed.
template <typename T> std::vector<T> random(size_t n, unsigned seed, double lo = -1, double hi = 1) {
  std::vector<T> v(n);
  unsigned long long s = 0x9E3779B97F4A7C15ull * (seed + 1);
  for (size_t i = 0; i < n; ++i) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    double u = double(s >> 11) / double(1ull << 53);
    v[i] = T(lo + (hi - lo) * u);
  }
  return v;
}

template <typename T> T *upload(const std::vector<T> &h) {
  T *d = nullptr;
  CK(cudaMalloc(&d, h.size() * sizeof(T)));
  CK(cudaMemcpy(d, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice));
  return d;
}

template <typename T> std::vector<T> download(const T *d, size_t n) {
  std::vector<T> h(n);
  CK(cudaMemcpy(h.data(), d, n * sizeof(T), cudaMemcpyDeviceToHost));
  return h;
}

/// Fills with NaN bytes (0xFF), so that an element nobody writes shows.
template <typename T> void poison(T *d, size_t n) { CK(cudaMemset(d, 0xFF, n * sizeof(T))); }

/// Largest absolute difference (inf when one side is NaN and the other is
/// not) and relative L2 error; prints one line and returns whether both are
/// within the bounds.
template <typename T>
bool compare(const char *what, const std::vector<T> &ref, const std::vector<T> &got,
             double maxAbs, double relL2) {
  double worst = 0, num = 0, den = 0;
  for (size_t i = 0; i < ref.size(); ++i) {
    double a = double(ref[i]), b = double(got[i]);
    double d = std::isnan(a) != std::isnan(b) ? INFINITY : std::isnan(a) ? 0 : std::fabs(a - b);
    worst = std::max(worst, d);
    num += std::isfinite(d) ? d * d : 0;
    den += std::isfinite(a) ? a * a : 0;
  }
  double rel = den > 0 ? std::sqrt(num / den) : std::sqrt(num);
  bool ok = worst <= maxAbs && rel <= relL2;
  std::printf("%s: %s max_abs_err %.3g rel_l2 %.3g (%zu elements)\n", what, ok ? "ok" : "MISMATCH",
              worst, rel, ref.size());
  return ok;
}

/// compare() with no tolerance, and the bits as well (a NaN payload or the
/// sign of a zero shows): what a rewrite that keeps the operations and
/// their order must give.
template <typename T>
bool identical(const char *what, const std::vector<T> &ref, const std::vector<T> &got) {
  bool ok = compare(what, ref, got, 0, 0);
  if (ref.size() != got.size() || std::memcmp(ref.data(), got.data(), ref.size() * sizeof(T))) {
    std::printf("%s: MISMATCH in the bits\n", what);
    ok = false;
  }
  return ok;
}

/// Median time of Launch in ms over 20 runs, L2 flushed before each.
template <typename F> double time(F launch) {
  static char *flush = nullptr;
  const size_t flushBytes = size_t(256) << 20;
  if (!flush)
    CK(cudaMalloc(&flush, flushBytes));
  launch();
  CK(cudaDeviceSynchronize());
  std::vector<float> ms;
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  for (int r = 0; r < 20; ++r) {
    CK(cudaMemsetAsync(flush, r, flushBytes));
    CK(cudaEventRecord(a));
    launch();
    CK(cudaEventRecord(b));
    CK(cudaEventSynchronize(b));
    float t = 0;
    CK(cudaEventElapsedTime(&t, a, b));
    ms.push_back(t);
  }
  CK(cudaGetLastError());
  std::sort(ms.begin(), ms.end());
  return 0.5 * (ms[9] + ms[10]);
}

inline void report(const char *what, double orig, double cand) {
  std::printf("time %s: original %.4f ms, rewritten %.4f ms, speed-up %.2fx\n", what, orig, cand,
              orig / cand);
}

inline unsigned ceilDiv(unsigned a, unsigned b) { return (a + b - 1) / b; }

} // namespace check
