// GPU check of a reduction sample against a CPU reference (test/gpu/templates/
// check.py compiles this with the sample's macros; see README.md there).
//
// For the sample's n and a few small sizes (1, 2, 3, 17, 1000, 4099), with
// the input pointer offset by 0..3 elements (the kernel peels the elements
// before the first 16-byte boundary), on several inputs:
// - "exact": values whose reduction has no rounding (small integers for a
//   sum, +-1 with a few 2 and 0.5 for a product, planted ties, -0.0 and NaN
//   for max/min/argmax/argmin), compared bit for bit;
// - "random": uniform values (full-range integers for + and *, which wrap),
//   compared exactly for integers, max, min and the arg reductions, and for
//   floating sums within 8 eps sqrt(n m) rms (n elements, m a thread's
//   share: the rounding of a blocked sum; the "exact" input is what catches
//   a lost element);
// - floating max/min/argmax/argmin: a row of only NaN (NaN, index 0).
// The wrapper is called twice and must give the same bits (deterministic,
// and the ticket reset for the next launch); then the kernel is launched
// directly with other BLOCK/ITEMS/grids (1 block of 32 threads up to the
// largest grid).
#include FORGE_SAMPLE_FILE
#include "check_common.h"
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <string>

typedef FORGE_T T;

#define FORGE_CAT2(a, b) a##b
#define FORGE_CAT(a, b) FORGE_CAT2(a, b)
#define FORGE_MAX_BLOCKS FORGE_CAT(FORGE_NAME, _max_blocks)

#if defined(FORGE_OP_ARGMAX) || defined(FORGE_OP_ARGMIN)
#define FORGE_ARG 1
#else
#define FORGE_ARG 0
#endif

namespace check_reduce {

constexpr bool Half = std::is_same<T, __half>::value || std::is_same<T, __nv_bfloat16>::value;
constexpr bool Floating = Half || std::is_floating_point<T>::value;

double toD(__half x) { return (double)__half2float(x); }
double toD(__nv_bfloat16 x) { return (double)__bfloat162float(x); }
template <typename V> double toD(V x) { return (double)x; }

template <typename V> V fromDT(double d) { return (V)d; }
template <> __half fromDT<__half>(double d) { return __float2half_rn((float)d); }
template <> __nv_bfloat16 fromDT<__nv_bfloat16>(double d) { return __float2bfloat16_rn((float)d); }
T fromD(double d) { return fromDT<T>(d); }

bool sameBits(T a, T b) { return std::memcmp(&a, &b, sizeof(T)) == 0; }
/// a < b, in T for integers (a double has too few bits for 64-bit ones).
bool less(T a, T b) {
  if constexpr (Floating)
    return toD(a) < toD(b);
  else
    return a < b;
}
bool isNan(T x) { return Floating && std::isnan(toD(x)); }

/// The accumulator's epsilon (16-bit types accumulate in float) and the
/// output's (its final rounding).
double epsAcc() { return std::is_same<T, double>::value ? 1.1e-16 : 6e-8; }
double epsOut() {
  if constexpr (std::is_same<T, __half>::value)
    return 1.0 / 1024;
  else if constexpr (std::is_same<T, __nv_bfloat16>::value)
    return 1.0 / 128;
  else
    return epsAcc();
}

struct Result {
  T value;
  long long index = -1;
};

/// The reference: the first index of the extreme for the arg reductions
/// (NaN loses to every number), fmax/fmin semantics for max/min, a double
/// sum or product for floating types, wrap-around for integers.
Result reference(const T *x, long long n) {
  Result r;
#if FORGE_ARG
  long long best = -1;
  for (long long i = 0; i < n; ++i) {
    if (best < 0) {
      best = i;
      continue;
    }
    if (isNan(x[i]))
      continue;
    if (isNan(x[best])) {
      best = i;
      continue;
    }
#if defined(FORGE_OP_ARGMAX)
    if (less(x[best], x[i]))
      best = i;
#else
    if (less(x[i], x[best]))
      best = i;
#endif
  }
  r.index = best;
  if (best >= 0)
    r.value = x[best];
  else
    r.value = Floating ? fromD(std::nan("")) : fromD(0);
#if defined(FORGE_OP_ARGMAX)
  if (best < 0 && !Floating)
    r.value = std::numeric_limits<T>::lowest();
#else
  if (best < 0 && !Floating)
    r.value = std::numeric_limits<T>::max();
#endif
#elif defined(FORGE_OP_MAX) || defined(FORGE_OP_MIN)
  bool any = false;
  T best = x[0];
  for (long long i = 0; i < n; ++i) {
    if (isNan(x[i]))
      continue;
#if defined(FORGE_OP_MAX)
    if (!any || less(best, x[i]))
      best = x[i];
#else
    if (!any || less(x[i], best))
      best = x[i];
#endif
    any = true;
  }
  r.value = any ? best : Floating ? fromD(std::nan("")) : best;
#else
  if constexpr (Floating) {
#if defined(FORGE_OP_ADD)
    double s = 0;
    for (long long i = 0; i < n; ++i)
      s += toD(x[i]);
#else
    double s = 1;
    for (long long i = 0; i < n; ++i)
      s *= toD(x[i]);
#endif
    r.value = fromD(s);
  } else {
    typedef typename std::make_unsigned<typename std::conditional<Floating, int, T>::type>::type U;
#if defined(FORGE_OP_ADD)
    U s = 0;
    for (long long i = 0; i < n; ++i)
      s = (U)(s + (U)x[i]);
#else
    U s = 1;
    for (long long i = 0; i < n; ++i)
      s = (U)(s * (U)x[i]);
#endif
    r.value = (T)s;
  }
#endif
  return r;
}

/// Is got right? Exact inputs, integers, max/min and the arg reductions:
/// the same bits (max/min of +0.0 and -0.0 may give either). A floating
/// sum or product of random inputs: within the rounding of a blocked sum
/// whose threads fold m elements each.
bool agrees(const Result &got, const Result &want, const T *x, long long n, bool exact,
            long long m, std::string &why) {
  char buf[256];
#if FORGE_ARG
  // The element's own bits (a NaN's payload may change through float).
  bool same = sameBits(got.value, want.value) || (isNan(got.value) && isNan(want.value));
  if (got.index != want.index || !same) {
    std::snprintf(buf, sizeof buf, "(%.9g, %lld), want (%.9g, %lld)", toD(got.value), got.index,
                  toD(want.value), want.index);
    why = buf;
    return false;
  }
  return true;
#else
  double g = toD(got.value), w = toD(want.value);
  bool ok;
  if (isNan(want.value) || isNan(got.value))
    ok = isNan(want.value) && isNan(got.value);
#if defined(FORGE_OP_MAX) || defined(FORGE_OP_MIN)
  else
    ok = Floating ? g == w : sameBits(got.value, want.value); // +0.0 and -0.0 tie
#else
  else if (exact || !Floating)
    ok = sameBits(got.value, want.value);
  else {
#if defined(FORGE_OP_ADD)
    double sq = 0;
    for (long long i = 0; i < n; ++i)
      sq += toD(x[i]) * toD(x[i]);
    double rms = std::sqrt(sq / (double)(n > 0 ? n : 1));
    double tol = 8 * epsAcc() * rms * std::sqrt((double)n * (double)(m + 1)) +
                 epsOut() * std::fabs(w);
#else
    double tol = (8 * epsAcc() * std::sqrt((double)n) + epsOut()) * std::fabs(w);
#endif
    ok = std::fabs(g - w) <= tol;
  }
#endif
  if (!ok) {
    std::snprintf(buf, sizeof buf, "%.17g, want %.17g", g, w);
    why = buf;
  }
  return ok;
#endif
}

/// Inputs of one kind.
std::vector<T> makeInput(const std::string &kind, long long n, unsigned seed) {
  std::vector<T> x(n);
  std::mt19937_64 g(seed);
  auto uniform = [&](double lo, double hi) {
    return std::uniform_real_distribution<double>(lo, hi)(g);
  };
  auto integer = [&](long long lo, long long hi) {
    return std::uniform_int_distribution<long long>(lo, hi)(g);
  };
  for (long long i = 0; i < n; ++i) {
    if (kind == "nan") {
      x[i] = fromD(std::nan(""));
      continue;
    }
#if defined(FORGE_OP_ADD)
    if (kind == "exact")
      x[i] = fromD((double)integer(Floating ? -4 : 0, 4));
    else if constexpr (Floating)
      x[i] = fromD(uniform(-1, 1));
    else
      x[i] = (T)g(); // full range: the sum wraps
#elif defined(FORGE_OP_MUL)
    if (kind == "exact")
      x[i] = fromD(integer(0, 1) ? 1.0 : Floating ? -1.0 : 3.0);
    else if constexpr (Floating)
      x[i] = fromD(1 + uniform(-1e-3, 1e-3));
    else
      x[i] = (T)(g() | 1u); // odd: the wrapped product never becomes 0
#else
    if constexpr (Floating)
      x[i] = kind == "exact" ? fromD((double)integer(-50, 50)) : fromD(uniform(-1, 1));
    else
      x[i] = kind == "exact" ? (T)integer(0, 99) : (T)g();
#endif
  }
#if defined(FORGE_OP_MUL)
  if (kind == "exact" && Floating && n > 0)
    for (int k = 0; k < 15; ++k) // 2^5 in all
      x[(size_t)integer(0, n - 1)] = fromD(k < 10 ? 2.0 : 0.5);
#endif
#if defined(FORGE_OP_MAX) || defined(FORGE_OP_MIN) || FORGE_ARG
  if (kind == "exact" && n > 0) {
    // Ties of the extreme, NaN first and here and there, signed zeros.
#if defined(FORGE_OP_MAX) || defined(FORGE_OP_ARGMAX)
    T extreme = Floating ? fromD(64) : (T)100;
#else
    T extreme = Floating ? fromD(-64) : (T)0;
    if (!Floating && !std::numeric_limits<T>::is_signed)
      extreme = (T)0;
    else if (!Floating)
      extreme = (T)-1;
#endif
    for (int k = 0; k < 3; ++k)
      x[(size_t)integer(0, n - 1)] = extreme;
    if (Floating) {
      x[0] = fromD(std::nan(""));
      for (int k = 0; k < 5 && n > 2; ++k) {
        x[(size_t)integer(1, n - 1)] = fromD(std::nan(""));
        x[(size_t)integer(1, n - 1)] = fromD(k & 1 ? -0.0 : 0.0);
      }
    }
  }
#endif
  return x;
}

struct Config {
  int block, items, grid;
};

/// Runs one configuration (-1: the wrapper) on dx[0, n).
Result run(int config, const T *dx, long long n, forge_check::DeviceBuffer<T> &dv,
           forge_check::DeviceBuffer<long long> &di) {
  static const Config Configs[] = {{32, 1, 1}, {64, 2, 3}, {128, 8, (int)FORGE_MAX_BLOCKS},
                                   {1024, 16, 5}, {256, 1, 257}};
#if FORGE_ARG
  if (config < 0)
    FORGE_CHECK_CUDA(FORGE_WRAPPER(dx, dv.get(), di.get(), n));
  else {
    const Config &c = Configs[config];
    switch (config) {
    case 0: FORGE_NAME<32, 1><<<c.grid, c.block>>>(dx, dv.get(), di.get(), n); break;
    case 1: FORGE_NAME<64, 2><<<c.grid, c.block>>>(dx, dv.get(), di.get(), n); break;
    case 2: FORGE_NAME<128, 8><<<c.grid, c.block>>>(dx, dv.get(), di.get(), n); break;
    case 3: FORGE_NAME<1024, 16><<<c.grid, c.block>>>(dx, dv.get(), di.get(), n); break;
    default: FORGE_NAME<256, 1><<<c.grid, c.block>>>(dx, dv.get(), di.get(), n); break;
    }
    FORGE_CHECK_CUDA(cudaGetLastError());
  }
#else
  if (config < 0)
    FORGE_CHECK_CUDA(FORGE_WRAPPER(dx, dv.get(), n));
  else {
    const Config &c = Configs[config];
    switch (config) {
    case 0: FORGE_NAME<32, 1><<<c.grid, c.block>>>(dx, dv.get(), n); break;
    case 1: FORGE_NAME<64, 2><<<c.grid, c.block>>>(dx, dv.get(), n); break;
    case 2: FORGE_NAME<128, 8><<<c.grid, c.block>>>(dx, dv.get(), n); break;
    case 3: FORGE_NAME<1024, 16><<<c.grid, c.block>>>(dx, dv.get(), n); break;
    default: FORGE_NAME<256, 1><<<c.grid, c.block>>>(dx, dv.get(), n); break;
    }
    FORGE_CHECK_CUDA(cudaGetLastError());
  }
#endif
  FORGE_CHECK_CUDA(cudaDeviceSynchronize());
  Result r;
  r.value = dv.read()[0];
  r.index = di.read()[0];
  return r;
}

/// A thread's share (the most elements one thread folds) for a config.
long long share(int config, long long n, int sms) {
  static const int Threads[] = {32 * 1, 64 * 3, 128 * 4096, 1024 * 5, 256 * 257};
  long long threads;
  if (config < 0) {
    long long blocks = std::min<long long>((long long)sms * 8, (n + 2047) / 2048);
    threads = std::max<long long>(blocks, 1) * 256;
  } else {
    threads = Threads[config];
  }
  return (n + threads - 1) / threads;
}

} // namespace check_reduce

using namespace check_reduce;

int main() {
  int device = 0, sms = 0;
  FORGE_CHECK_CUDA(cudaGetDevice(&device));
  FORGE_CHECK_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  // The sample's size first, then the small ones it is not.
  std::vector<long long> sizes = {(long long)FORGE_S0};
  for (long long n : {1, 2, 3, 17, 1000, 4099})
    if (n != (long long)FORGE_S0)
      sizes.push_back(n);
  std::vector<std::string> kinds = {"exact", "random"};
#if !defined(FORGE_OP_ADD) && !defined(FORGE_OP_MUL)
  if (Floating)
    kinds.push_back("nan");
#endif
  forge_check::DeviceBuffer<T> dv(1);
  forge_check::DeviceBuffer<long long> di(1);
  int checks = 0;
  unsigned seed = 1;
  for (long long n : sizes) {
    for (const std::string &kind : kinds) {
      if (kind == "nan" && n > 4099)
        continue;
      std::vector<T> x = makeInput(kind, n + 3, ++seed);
      forge_check::DeviceBuffer<T> dx(x);
      for (int offset = 0; offset <= 3; ++offset) {
        const T *hx = x.data() + offset;
        Result want = reference(hx, n);
        // The wrapper twice (same bits), then the other configurations:
        // all of them at the sample's size, one (by turn) at the others.
        Result first = run(-1, dx.get() + offset, n, dv, di);
        Result again = run(-1, dx.get() + offset, n, dv, di);
        std::string why;
        char what[160];
        std::snprintf(what, sizeof what, "n %lld, %s input, offset %d", n, kind.c_str(), offset);
        if (!sameBits(first.value, again.value) || first.index != again.index) {
          std::printf("FAIL %s (%s): a second launch gave %.17g (%lld), the first %.17g (%lld)\n",
                      FORGE_STR(FORGE_WRAPPER), what, toD(again.value), again.index,
                      toD(first.value), first.index);
          return 1;
        }
        if (!agrees(first, want, hx, n, kind != "random", share(-1, n, sms), why)) {
          std::printf("FAIL %s (%s, the wrapper): %s\n", FORGE_STR(FORGE_WRAPPER), what,
                      why.c_str());
          return 1;
        }
        ++checks;
        for (int config = 0; config < 5; ++config) {
          if (n != (long long)FORGE_S0 && config != (offset + (int)n) % 5)
            continue;
          Result got = run(config, dx.get() + offset, n, dv, di);
          if (!agrees(got, want, hx, n, kind != "random", share(config, n, sms), why)) {
            std::printf("FAIL %s (%s, kernel config %d): %s\n", FORGE_STR(FORGE_WRAPPER), what,
                        config, why.c_str());
            return 1;
          }
          ++checks;
        }
      }
    }
  }
  std::printf("%d comparisons\n", checks);
  return forge_check::pass();
}
