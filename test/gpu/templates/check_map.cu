// GPU check of a map sample (out[i] = f(a[i], b[i], c[i], d[i])) against a
// CPU reference (test/gpu/templates/check.py compiles this with the
// sample's macros, FORGE_MAP(a, b, c, d) the expression and FORGE_INPUTS
// the inputs; see README.md there). The sample's n and a few small ones
// (fewer than a vector, one vector and one more), each with: every pointer
// aligned (16-byte vectors); every pointer one element in; only the output
// one element in; only the inputs one element in (the scalar loop); and
// out == a (in place). Every element is compared; the elements around the
// output must stay untouched. f16 and bf16 are computed in float, as the
// template does, and rounded once. The expression is evaluated on the host
// too, so a sample may only call functions the host has (sqrtf, fmaxf, ...;
// not rsqrtf or __expf).
#include FORGE_SAMPLE_FILE
#include "check_common.h"
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cstring>
#include <type_traits>

typedef FORGE_T T;

/// The type the map computes in, and the conversions.
template <typename U> struct Arith {
  typedef U C;
  static C in(U x) { return x; }
  static U out(C x) { return x; }
};
template <> struct Arith<__half> {
  typedef float C;
  static float in(__half x) { return __half2float(x); }
  static __half out(float x) { return __float2half_rn(x); }
};
template <> struct Arith<__nv_bfloat16> {
  typedef float C;
  static float in(__nv_bfloat16 x) { return __bfloat162float(x); }
  static __nv_bfloat16 out(float x) { return __float2bfloat16_rn(x); }
};
typedef Arith<T>::C C;
static const bool floating = std::is_floating_point<C>::value;

static T reference(T ta, T tb, T tc, T td) {
  const C a = Arith<T>::in(ta), b = Arith<T>::in(tb), c = Arith<T>::in(tc), d = Arith<T>::in(td);
  (void)a; (void)b; (void)c; (void)d;
  return Arith<T>::out((C)(FORGE_MAP(a, b, c, d)));
}

static double tolerance() {
  if (std::is_same<T, __half>::value)
    return 1e-2;
  if (std::is_same<T, __nv_bfloat16>::value)
    return 2e-2;
  if (std::is_same<T, double>::value)
    return 1e-12;
  return std::is_same<T, float>::value ? 1e-5 : 0; // integers: exact
}

static std::vector<T> inputs(long long count, unsigned seed) {
  std::vector<T> v(count);
  std::mt19937_64 g(seed);
  for (auto &x : v) {
    if (floating)
      x = Arith<T>::out((C)std::uniform_real_distribution<double>(-1.0, 1.0)(g));
    else
      x = (T)std::uniform_int_distribution<long long>(0, 99)(g);
  }
  return v;
}

static bool untouched(T x) {
  unsigned char b[sizeof(T)];
  std::memcpy(b, &x, sizeof(T));
  for (unsigned char c : b)
    if (c != 0xff)
      return false;
  return true;
}

static cudaError_t call(T *a, T *b, T *c, T *d, T *out, long long n) {
  (void)b; (void)c; (void)d;
#if FORGE_INPUTS == 1
  return FORGE_WRAPPER(a, out, n);
#elif FORGE_INPUTS == 2
  return FORGE_WRAPPER(a, b, out, n);
#elif FORGE_INPUTS == 3
  return FORGE_WRAPPER(a, b, c, out, n);
#else
  return FORGE_WRAPPER(a, b, c, d, out, n);
#endif
}

/// in: the inputs' offset; off: the output's; in place: out is a.
static bool run(long long n, int in, int off, bool inPlace, unsigned seed) {
  std::vector<T> h[4];
  for (int k = 0; k < 4; ++k)
    h[k] = inputs(n + 2, seed * 4 + k);
  std::vector<double> want(n);
  for (long long i = 0; i < n; ++i)
    want[i] = (double)Arith<T>::in(reference(h[0][in + i], h[1][in + i], h[2][in + i],
                                             h[3][in + i]));
  forge_check::DeviceBuffer<T> da(h[0]), db(h[1]), dc(h[2]), dd(h[3]), dout(n + 2);
  T *out = inPlace ? da.get() + in : dout.get() + off;
  FORGE_CHECK_CUDA(call(da.get() + in, db.get() + in, dc.get() + in, dd.get() + in, out, n));
  FORGE_CHECK_CUDA(cudaDeviceSynchronize());
  std::vector<T> all = inPlace ? da.read() : dout.read();
  const int at = inPlace ? in : off;
  char what[96];
  std::snprintf(what, sizeof what, "n = %lld, inputs +%d, output +%d%s", n, in, off,
                inPlace ? ", in place" : "");
  std::vector<double> got(n);
  for (long long i = 0; i < n; ++i)
    got[i] = (double)Arith<T>::in(all[at + i]);
  if (!forge_check::close(got, want, tolerance(), what))
    return false;
  if (!inPlace)
    for (size_t i = 0; i < all.size(); ++i)
      if ((i < (size_t)at || i >= (size_t)(at + n)) && !untouched(all[i])) {
        std::printf("FAIL %s (%s): the element at %zu outside the output was written\n",
                    FORGE_STR(FORGE_WRAPPER), what, i);
        return false;
      }
  return true;
}

int main() {
  const long long sizes[] = {FORGE_S0, 1, 3, 8, 9, 4097};
  const int cases[][3] = {{0, 0, 0}, {1, 1, 0}, {0, 1, 0}, {1, 0, 0}, {0, 0, 1}, {1, 0, 1}};
  unsigned seed = 1;
  for (long long n : sizes)
    for (const auto &c : cases)
      if (!run(n, c[0], c[1], c[2] != 0, seed++))
        return 1;
  return forge_check::pass();
}
