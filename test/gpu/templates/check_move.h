// Shared by the checks of the templates that move elements without
// arithmetic (check_gather.cu, check_scatter.cu, check_transpose.cu): the
// elements are random bit patterns, compared bit for bit, and the elements
// around the range a kernel may write (one before an offset pointer, one
// after the end) must keep the 0xff bytes DeviceBuffer fills with.
// Host-only C++17, after check_common.h.
#ifndef FORGE_CHECK_MOVE_H
#define FORGE_CHECK_MOVE_H

#include "check_common.h"
#include <cstring>

namespace forge_check {

/// Random bit patterns, none of them all ones (the untouched fill).
template <typename T> void fillBits(std::vector<T> &v, unsigned seed) {
  std::mt19937_64 g(seed);
  for (auto &x : v) {
    unsigned long long w = g();
    unsigned char b[sizeof(T)];
    std::memcpy(b, &w, sizeof(T));
    b[0] &= 0x7f; // never all ones
    std::memcpy(&x, b, sizeof(T));
  }
}

template <typename T> bool sameBits(const T &a, const T &b) {
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}

template <typename T> bool untouched(const T &a) {
  unsigned char b[sizeof(T)];
  std::memcpy(b, &a, sizeof(T));
  for (unsigned char c : b)
    if (c != 0xff)
      return false;
  return true;
}

template <typename T> unsigned long long bitsOf(const T &a) {
  unsigned long long w = 0;
  std::memcpy(&w, &a, sizeof(T));
  return w;
}

/// got holds the device buffer: got[offset + i] must equal want[i] for
/// i < want.size(), and every other element must be untouched.
template <typename T>
bool sameAll(const std::vector<T> &got, size_t offset, const std::vector<T> &want,
             const char *what) {
  size_t bad = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    bool inside = i >= offset && i - offset < want.size();
    bool ok = inside ? sameBits(got[i], want[i - offset]) : untouched(got[i]);
    if (!ok && bad++ < 5) {
      if (inside)
        std::printf("  %s: [%zu] = 0x%llx, want 0x%llx\n", what, i - offset, bitsOf(got[i]),
                    bitsOf(want[i - offset]));
      else
        std::printf("  %s: the element at %zu outside the output was written (0x%llx)\n", what,
                    i, bitsOf(got[i]));
    }
  }
  if (bad) {
    std::printf("FAIL %s (%s): %zu of %zu elements differ\n", FORGE_STR(FORGE_WRAPPER), what,
                bad, got.size());
    return false;
  }
  return true;
}

} // namespace forge_check

#endif
