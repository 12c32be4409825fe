// GPU check of a scan sample against a CPU reference (test/gpu/templates/
// check.py compiles this with the sample's macros; see README.md there).
// Runs the sample's host wrapper on random inputs, twice: with the
// allocations' own (aligned) pointers and with both pointers one element
// in (misaligned for 16-byte loads), and compares every element.
#include FORGE_SAMPLE_FILE
#include "check_common.h"

typedef FORGE_T T;

[[maybe_unused]] static T combine(T a, T b) {
#if defined(FORGE_OP_ADD)
  return a + b;
#elif defined(FORGE_OP_MAX)
  return a > b ? a : b;
#elif defined(FORGE_OP_MIN)
  return a < b ? a : b;
#else
#error "the scan check knows +, max and min"
#endif
}

static T identity() {
#if defined(FORGE_OP_ADD)
  return (T)0;
#elif defined(FORGE_OP_MAX)
  return std::numeric_limits<T>::lowest();
#else
  return std::numeric_limits<T>::max();
#endif
}

int main() {
  const long long n = FORGE_S0;
  std::vector<T> in(n + 1);
  forge_check::fill(in, 1);
  for (int offset = 0; offset <= 1; ++offset) {
    std::vector<T> want(n);
    // Reference in double for floats: the template's association differs.
    [[maybe_unused]] double run = 0;
    T runT = identity();
    for (long long i = 0; i < n; ++i) {
      T x = in[offset + i];
#if defined(FORGE_OP_ADD)
      if (FORGE_INCLUSIVE) { run += (double)x; want[i] = (T)run; }
      else { want[i] = (T)run; run += (double)x; }
#else
      if (FORGE_INCLUSIVE) { runT = combine(runT, x); want[i] = runT; }
      else { want[i] = runT; runT = combine(runT, x); }
#endif
    }
    forge_check::DeviceBuffer<T> din(in), dout(n + 1);
    FORGE_CHECK_CUDA(FORGE_WRAPPER(din.get() + offset, dout.get() + offset, n));
    FORGE_CHECK_CUDA(cudaDeviceSynchronize());
    std::vector<T> got = dout.read();
    got.erase(got.begin(), got.begin() + offset);
    got.resize(n);
    if (!forge_check::close(got, want, 1e-4, offset ? "misaligned" : "aligned"))
      return 1;
  }
  return forge_check::pass();
}
