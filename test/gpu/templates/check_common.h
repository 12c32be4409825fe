// Shared by the template checks (check_<kind>.cu): random inputs, device
// buffers, comparison with a CPU reference, and the PASS/FAIL line that
// check.py reads. Host-only C++17.
#ifndef FORGE_CHECK_COMMON_H
#define FORGE_CHECK_COMMON_H

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
#include <limits>
#include <random>
#include <type_traits>
#include <vector>

#define FORGE_STR2(x) #x
#define FORGE_STR(x) FORGE_STR2(x)

#define FORGE_CHECK_CUDA(call)                                                   \
  do {                                                                           \
    cudaError_t forge_e = (call);                                                \
    if (forge_e != cudaSuccess) {                                                \
      std::printf("FAIL %s: %s: %s\n", FORGE_STR(FORGE_WRAPPER), #call,         \
                  cudaGetErrorString(forge_e));                                  \
      std::exit(1);                                                              \
    }                                                                            \
  } while (0)

namespace forge_check {

/// Uniform values: [-1, 1) for floating types, [0, 100) for integers
/// (Hi overrides the integers' upper end).
template <typename T> void fill(std::vector<T> &v, unsigned seed, long long hi = 100) {
  std::mt19937_64 g(seed);
  for (auto &x : v) {
    if constexpr (std::is_floating_point<T>::value)
      x = (T)std::uniform_real_distribution<double>(-1.0, 1.0)(g);
    else
      x = (T)std::uniform_int_distribution<long long>(0, hi - 1)(g);
  }
}

template <typename T> class DeviceBuffer {
public:
  explicit DeviceBuffer(size_t n) : n_(n) {
    FORGE_CHECK_CUDA(cudaMalloc(&p_, (n ? n : 1) * sizeof(T)));
    FORGE_CHECK_CUDA(cudaMemset(p_, 0xff, (n ? n : 1) * sizeof(T)));
  }
  explicit DeviceBuffer(const std::vector<T> &h) : DeviceBuffer(h.size()) {
    FORGE_CHECK_CUDA(cudaMemcpy(p_, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice));
  }
  ~DeviceBuffer() { cudaFree(p_); }
  DeviceBuffer(const DeviceBuffer &) = delete;
  DeviceBuffer &operator=(const DeviceBuffer &) = delete;
  T *get() const { return p_; }
  std::vector<T> read() const {
    std::vector<T> h(n_);
    FORGE_CHECK_CUDA(cudaMemcpy(h.data(), p_, n_ * sizeof(T), cudaMemcpyDeviceToHost));
    return h;
  }

private:
  T *p_ = nullptr;
  size_t n_;
};

/// Every element within Tol (relative to max(1, |want|)) for floating
/// types, equal for integers; the first mismatches are printed.
template <typename T, typename U>
bool close(const std::vector<T> &got, const std::vector<U> &want, double tol, const char *what) {
  if (got.size() != want.size()) {
    std::printf("FAIL %s (%s): %zu elements, want %zu\n", FORGE_STR(FORGE_WRAPPER), what,
                got.size(), want.size());
    return false;
  }
  size_t bad = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    double g = (double)got[i], w = (double)want[i];
    bool ok = std::is_floating_point<T>::value
                  ? std::fabs(g - w) <= tol * std::fmax(1.0, std::fabs(w)) ||
                        (std::isnan(g) && std::isnan(w))
                  : g == w;
    if (!ok && bad++ < 5)
      std::printf("  %s: [%zu] = %.9g, want %.9g\n", what, i, g, w);
  }
  if (bad) {
    std::printf("FAIL %s (%s): %zu of %zu elements differ\n", FORGE_STR(FORGE_WRAPPER), what,
                bad, got.size());
    return false;
  }
  return true;
}

inline int pass() {
  std::printf("PASS %s\n", FORGE_STR(FORGE_WRAPPER));
  return 0;
}

} // namespace forge_check

#endif
