// GPU check of a gather sample (out[i] = in[idx[i]]) against a CPU
// reference (test/gpu/templates/check.py compiles this with the sample's
// macros; see README.md there). The sample's n and a few small ones, each
// with the allocations' own pointers and with every pointer one element in;
// random indices over [0, n) with both ends present; every element compared
// bit for bit, and the elements around the output must stay untouched.
#include FORGE_SAMPLE_FILE
#include "check_move.h"

typedef FORGE_T T;

static bool run(long long n, int offset, unsigned seed) {
  std::vector<T> in(n + 1);
  forge_check::fillBits(in, seed);
  std::vector<int> idx(n + 1);
  std::mt19937_64 g(seed + 1000);
  for (auto &j : idx)
    j = (int)std::uniform_int_distribution<long long>(0, n - 1)(g);
  idx[offset] = (int)(n - 1);
  idx[offset + n - 1] = 0;
  std::vector<T> want(n);
  for (long long i = 0; i < n; ++i)
    want[i] = in[offset + idx[offset + i]];
  forge_check::DeviceBuffer<T> din(in), dout(n + 2);
  forge_check::DeviceBuffer<int> didx(idx);
  FORGE_CHECK_CUDA(FORGE_WRAPPER(din.get() + offset, didx.get() + offset, dout.get() + offset, n));
  FORGE_CHECK_CUDA(cudaDeviceSynchronize());
  char what[64];
  std::snprintf(what, sizeof what, "n = %lld, offset %d", n, offset);
  return forge_check::sameAll(dout.read(), offset, want, what);
}

int main() {
  const long long sizes[] = {FORGE_S0, 1, 2, 3, 1023, 1025, 4097};
  unsigned seed = 1;
  for (long long n : sizes)
    for (int offset = 0; offset <= 1; ++offset)
      if (!run(n, offset, seed++))
        return 1;
  return forge_check::pass();
}
