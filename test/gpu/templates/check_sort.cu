// GPU check of a sort sample (radix-sort or merge-sort: both have the same
// wrapper) against std::stable_sort on the CPU (test/gpu/templates/check.py
// compiles this with the sample's macros: FORGE_T the keys' type, FORGE_VT
// and FORGE_HAS_VALUES=1 with values, FORGE_DESCENDING, FORGE_S0 = n).
//
// Keys mix many duplicates (stability shows), the whole range of the type
// and, for floats, -0.0, +0.0, infinities and denormals; values are the
// input positions, so every value checks where its key came from. The
// order is the templates' (their <name>_to_bits: -0.0 before +0.0, NaNs
// left out of the inputs). Three runs: aligned pointers; pointers one
// element in (misaligned), new keys, on the scratch the first run left
// (the ticket state must have been reset); and again aligned with new keys.
// Every element is compared, and the elements around [0, n) must be
// untouched.
#include FORGE_SAMPLE_FILE
#include "check_common.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <numeric>

#define FORGE_CAT2(a, b) a##b
#define FORGE_CAT(a, b) FORGE_CAT2(a, b)
#define FORGE_SCRATCH_BYTES FORGE_CAT(FORGE_WRAPPER, _scratch_bytes)

#if defined(FORGE_HAS_VALUES) && FORGE_HAS_VALUES
#define FORGE_SORT_VALUES 1
typedef FORGE_VT V;
#else
#define FORGE_SORT_VALUES 0
typedef unsigned int V;
#endif
typedef FORGE_T K;
static_assert(sizeof(K) == 4 && sizeof(V) == 4, "the sort templates take 4-byte keys and values");

static uint32_t bitsOf(K k) {
  uint32_t u;
  std::memcpy(&u, &k, 4);
  return u;
}

// The templates' order: order-preserving unsigned bits, complemented when
// descending.
static uint32_t orderBits(K k) {
  uint32_t u = bitsOf(k);
  if (std::is_floating_point<K>::value)
    u = (u & 0x80000000u) ? ~u : (u | 0x80000000u);
  else if (std::is_signed<K>::value)
    u ^= 0x80000000u;
  return FORGE_DESCENDING ? ~u : u;
}

static K keyFromBits(uint32_t u) {
  K k;
  std::memcpy(&k, &u, 4);
  return k;
}

static std::vector<K> makeKeys(long long n, unsigned seed) {
  std::mt19937_64 g(seed);
  std::vector<K> keys(n);
  for (long long i = 0; i < n; ++i) {
    const uint32_t r = (uint32_t)g(), kind = (uint32_t)(g() % 8);
    uint32_t u;
    if (std::is_floating_point<K>::value) {
      float f;
      if (kind < 4) {
        f = (float)((int)(r % 2001u) - 1000) / 256.0f; // few distinct: duplicates
      } else if (kind < 7) {
        u = r;
        if (((u >> 23) & 0xffu) == 0xffu)
          u &= ~0x00800000u; // exponent 255 (NaN, inf) becomes 254
        std::memcpy(&f, &u, 4);
      } else {
        const float special[] = {-0.0f, 0.0f, INFINITY, -INFINITY, 1e-45f, -1e-45f, 1.0f, -1.0f};
        f = special[r % 8];
      }
      std::memcpy(&u, &f, 4);
    } else {
      // Small values (many duplicates), the whole range, and the extremes.
      u = kind < 4 ? r % 64u : kind < 7 ? r : (r & 1u ? 0xffffffffu : (r & 2u ? 0x80000000u : 0u));
    }
    keys[i] = keyFromBits(u);
  }
  return keys;
}

// One run: sorts keys (values: their positions) at the given offset into
// device buffers of n + 2 elements and compares every element.
static bool run(long long n, int offset, unsigned seed, void *scratch, size_t scratch_bytes,
                const char *what) {
  std::vector<K> keys = makeKeys(n, seed);
  std::vector<uint32_t> order(n);
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
    return orderBits(keys[a]) < orderBits(keys[b]);
  });
  std::vector<K> want(n);
  std::vector<V> wantValues(n);
  for (long long i = 0; i < n; ++i) {
    want[i] = keys[order[i]];
    wantValues[i] = (V)order[i];
  }

  // The buffers hold n + 2: a guard element before (offset 1) and after.
  std::vector<K> hostKeys(n + 2, keyFromBits(0x7fc00001u));
  std::copy(keys.begin(), keys.end(), hostKeys.begin() + offset);
  forge_check::DeviceBuffer<K> dkeys(hostKeys), dkeysTmp(n + 2);
#if FORGE_SORT_VALUES
  std::vector<V> hostValues(n + 2, (V)12345);
  for (long long i = 0; i < n; ++i)
    hostValues[offset + i] = (V)i;
  forge_check::DeviceBuffer<V> dvalues(hostValues), dvaluesTmp(n + 2);
  FORGE_CHECK_CUDA(FORGE_WRAPPER(dkeys.get() + offset, dvalues.get() + offset,
                                 dkeysTmp.get() + offset, dvaluesTmp.get() + offset, scratch,
                                 scratch_bytes, n));
#else
  FORGE_CHECK_CUDA(
      FORGE_WRAPPER(dkeys.get() + offset, dkeysTmp.get() + offset, scratch, scratch_bytes, n));
#endif
  FORGE_CHECK_CUDA(cudaDeviceSynchronize());

  std::vector<K> gotAll = dkeys.read();
  std::vector<uint32_t> got(n), wantBits(n);
  for (long long i = 0; i < n; ++i) {
    got[i] = bitsOf(gotAll[offset + i]);
    wantBits[i] = bitsOf(want[i]);
  }
  // Compared as bits: -0.0 and +0.0 (and their order) count.
  if (!forge_check::close(got, wantBits, 0, what))
    return false;
  for (long long i = 0; i < n + 2; ++i) {
    if (i >= offset && i < offset + n)
      continue;
    if (bitsOf(gotAll[i]) != 0x7fc00001u) {
      std::printf("FAIL %s (%s): keys[%lld] outside [0, n) was written\n",
                  FORGE_STR(FORGE_WRAPPER), what, i - offset);
      return false;
    }
  }
#if FORGE_SORT_VALUES
  std::vector<V> gotValuesAll = dvalues.read();
  std::vector<uint32_t> gotValues(n), wantValueBits(n);
  for (long long i = 0; i < n; ++i) {
    V v = gotValuesAll[offset + i];
    std::memcpy(&gotValues[i], &v, 4);
    std::memcpy(&wantValueBits[i], &wantValues[i], 4);
  }
  // The values must be the keys' input positions in stable order.
  if (!forge_check::close(gotValues, wantValueBits, 0, "values (stability)"))
    return false;
#endif
  return true;
}

int main() {
  const long long n = FORGE_S0;
  const size_t scratch_bytes = FORGE_SCRATCH_BYTES(n);
  void *scratch = nullptr;
  if (scratch_bytes)
    FORGE_CHECK_CUDA(cudaMalloc(&scratch, scratch_bytes));
  // Scratch contents do not matter: start from garbage.
  if (scratch_bytes)
    FORGE_CHECK_CUDA(cudaMemset(scratch, 0xa5, scratch_bytes));
  if (!run(n, 0, 1, scratch, scratch_bytes, "aligned") ||
      !run(n, 1, 2, scratch, scratch_bytes, "misaligned, second launch") ||
      !run(n, 0, 3, scratch, scratch_bytes, "third launch"))
    return 1;
  // Too little scratch is refused, not run.
  if (scratch_bytes &&
#if FORGE_SORT_VALUES
      FORGE_WRAPPER((K *)nullptr, (V *)nullptr, (K *)nullptr, (V *)nullptr, scratch,
                    scratch_bytes - 1, n) != cudaErrorInvalidValue
#else
      FORGE_WRAPPER((K *)nullptr, (K *)nullptr, scratch, scratch_bytes - 1, n) !=
          cudaErrorInvalidValue
#endif
  ) {
    std::printf("FAIL %s: too little scratch was not refused\n", FORGE_STR(FORGE_WRAPPER));
    return 1;
  }
  cudaFree(scratch);
  return forge_check::pass();
}
