// GPU check of a histogram sample against a CPU reference (test/gpu/
// templates/check.py compiles this with the sample's macros; see README.md
// there).
//
// For the sample's n and a few small sizes (1, 2, 3, 17, 1000, 4099), with
// the input pointer offset by 0..3 samples (the kernel peels the samples
// before the first 16-byte boundary: 1 to 15 of them for u8), on three
// inputs: samples spread over [-bins/8, bins + bins/8] (within the type;
// the ones outside [0, bins) must be ignored), every sample in one bin
// (the atomics' worst case), and the type's whole range. Every bin is
// compared, and one guard word after the bins must stay untouched:
// - the wrapper on bins holding earlier counts (it adds to them);
// - the wrapper with zero_first (a fresh histogram);
// - the kernel launched directly with other BLOCK/ITEMS/COPIES and grids.
#include FORGE_SAMPLE_FILE
#include "check_common.h"
#include <algorithm>
#include <string>

typedef FORGE_T T;

#define FORGE_CAT2(a, b) a##b
#define FORGE_CAT(a, b) FORGE_CAT2(a, b)
#define FORGE_MAX_COPIES FORGE_CAT(FORGE_NAME, _max_copies)

namespace check_histogram {

constexpr long long Bins = FORGE_BINS;
constexpr bool Signed = std::numeric_limits<T>::is_signed;
constexpr unsigned int Guard = 0xdeadbeefu;

constexpr int copies(int want) { return want < FORGE_MAX_COPIES ? want : FORGE_MAX_COPIES; }

bool counted(T x) {
  if (Signed)
    return (long long)x >= 0 && (long long)x < Bins;
  return (unsigned long long)x < (unsigned long long)Bins;
}

std::vector<T> makeInput(const std::string &kind, long long n, unsigned seed) {
  std::mt19937_64 g(seed);
  long long lo = Signed ? -(Bins / 8) - 1 : 0, hi = Bins + Bins / 8;
  long long tmin = (long long)std::numeric_limits<T>::lowest();
  long long tmax = sizeof(T) == 8 && !Signed ? (long long)(~0ull >> 1)
                                             : (long long)std::numeric_limits<T>::max();
  lo = std::max(lo, tmin);
  hi = std::min(hi, tmax);
  std::vector<T> x(n);
  std::uniform_int_distribution<long long> spread(lo, hi);
  for (auto &v : x) {
    if (kind == "spread")
      v = (T)spread(g);
    else if (kind == "one")
      v = (T)(Bins / 2);
    else
      v = (T)g(); // the whole range of the type
  }
  return x;
}

/// Runs one configuration on dx[0, n) into db (Bins + 1 words).
void run(int config, const T *dx, long long n, unsigned int *db, int sms) {
  switch (config) {
  case 0: FORGE_NAME<32, 1, copies(1)><<<1, 32>>>(dx, db, n); break;
  case 1: FORGE_NAME<64, 4, copies(2)><<<3, 64>>>(dx, db, n); break;
  case 2: FORGE_NAME<1024, 16, copies(32)><<<2 * sms, 1024>>>(dx, db, n); break;
  default: FORGE_NAME<128, 1, copies(4)><<<257, 128>>>(dx, db, n); break;
  }
  FORGE_CHECK_CUDA(cudaGetLastError());
}

bool compare(const std::vector<unsigned int> &got, const std::vector<unsigned int> &want,
             const char *what) {
  if (got[Bins] != Guard) {
    std::printf("FAIL %s (%s): the word after the bins changed to %u\n",
                FORGE_STR(FORGE_WRAPPER), what, got[Bins]);
    return false;
  }
  long long bad = 0;
  for (long long b = 0; b < Bins; ++b)
    if (got[b] != want[b] && bad++ < 5)
      std::printf("  %s: bin %lld = %u, want %u\n", what, b, got[b], want[b]);
  if (bad) {
    std::printf("FAIL %s (%s): %lld of %lld bins differ\n", FORGE_STR(FORGE_WRAPPER), what, bad,
                Bins);
    return false;
  }
  return true;
}

} // namespace check_histogram

using namespace check_histogram;

int main() {
  int device = 0, sms = 0;
  FORGE_CHECK_CUDA(cudaGetDevice(&device));
  FORGE_CHECK_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  std::vector<long long> sizes = {(long long)FORGE_S0};
  for (long long n : {1, 2, 3, 17, 1000, 4099})
    if (n != (long long)FORGE_S0)
      sizes.push_back(n);
  std::mt19937 g(7);
  int checks = 0;
  unsigned seed = 1;
  for (long long n : sizes)
    for (const char *kind : {"spread", "one", "whole"}) {
      std::vector<T> x = makeInput(kind, n + 3, ++seed);
      forge_check::DeviceBuffer<T> dx(x);
      for (int offset = 0; offset <= 3; ++offset) {
        std::vector<unsigned int> counts(Bins + 1, 0u), earlier(Bins + 1);
        counts[Bins] = Guard;
        for (long long i = 0; i < n; ++i)
          if (counted(x[offset + i]))
            ++counts[(size_t)x[offset + i]];
        for (auto &e : earlier)
          e = g() % 1000;
        earlier[Bins] = Guard;
        std::vector<unsigned int> added(counts);
        for (long long b = 0; b < Bins; ++b)
          added[b] += earlier[b];
        char what[160];
        std::snprintf(what, sizeof what, "n %lld, %s samples, offset %d", n, kind, offset);
        // The wrapper adds to the bins' earlier counts...
        forge_check::DeviceBuffer<unsigned int> db(earlier);
        FORGE_CHECK_CUDA(FORGE_WRAPPER(dx.get() + offset, db.get(), n));
        FORGE_CHECK_CUDA(cudaDeviceSynchronize());
        if (!compare(db.read(), added, what))
          return 1;
        // ... and starts afresh with zero_first.
        FORGE_CHECK_CUDA(FORGE_WRAPPER(dx.get() + offset, db.get(), n, 0, true));
        FORGE_CHECK_CUDA(cudaDeviceSynchronize());
        if (!compare(db.read(), counts, what))
          return 1;
        checks += 2;
        // Other configurations: all at the sample's size, one (by turn) at
        // the others.
        for (int config = 0; config < 4; ++config) {
          if (n != (long long)FORGE_S0 && config != (offset + (int)n) % 4)
            continue;
          std::vector<unsigned int> zero(Bins + 1, 0u);
          zero[Bins] = Guard;
          forge_check::DeviceBuffer<unsigned int> dc(zero);
          run(config, dx.get() + offset, n, dc.get(), sms);
          FORGE_CHECK_CUDA(cudaDeviceSynchronize());
          char cwhat[200];
          std::snprintf(cwhat, sizeof cwhat, "%s, kernel config %d", what, config);
          if (!compare(dc.read(), counts, cwhat))
            return 1;
          ++checks;
        }
      }
    }
  std::printf("%d comparisons\n", checks);
  return forge_check::pass();
}
