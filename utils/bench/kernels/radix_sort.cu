// Benchmark op: radix sort of 32-bit unsigned keys (first-round kernel).
// Sorts keys[0..n) ascending in ONE launch of ONE block.
//
// Why one block: a launch spec names one launch of one kernel, and an LSD
// radix sort needs every pass to finish before the next one starts (and,
// within a pass, a histogram of the whole array before any key can be
// placed). Without a grid-wide barrier (cooperative launches are not what
// the worker does, and a hand-made barrier deadlocks unless every block is
// resident), the simplest correct single-launch sort keeps the whole sort
// in one block, where __syncthreads() is the barrier. The other SMs idle:
// this is a deliberately weak first round (see README.md).
//
// Algorithm: LSD, 4-bit digits, 8 passes, ping-ponging keys -> tmp -> keys,
// so the result ends in keys. Thread t owns the contiguous segment
// [t * seg, (t + 1) * seg) of the current source:
//   1. it counts the digits of its segment and writes its 16 counts to
//      counts[d * blockDim.x + t];
//   2. thread 0 turns counts into an exclusive scan in (digit, thread)
//      order, i.e. every thread's first output position for every digit;
//   3. each thread walks its segment again in order and writes each key to
//      its digit's next position. Walking in order and scanning threads in
//      segment order makes every pass stable, which LSD needs.
// tmp (n words) and counts (16 * 1024 words) are scratch: their contents
// on entry do not matter and on exit are not part of the result.
#define RADIX_BITS 4
#define RADIX_DIGITS (1 << RADIX_BITS)

__global__ void radix_sort(unsigned *keys, unsigned *tmp, unsigned *counts,
                           int n) {
  int T = blockDim.x, t = threadIdx.x;
  int seg = (n + T - 1) / T;
  int begin = min(t * seg, n), end = min(begin + seg, n);
  unsigned *src = keys, *dst = tmp;

  for (int shift = 0; shift < 32; shift += RADIX_BITS) {
    int c[RADIX_DIGITS];
    for (int d = 0; d < RADIX_DIGITS; ++d)
      c[d] = 0;
    for (int i = begin; i < end; ++i)
      ++c[(src[i] >> shift) & (RADIX_DIGITS - 1)];
    for (int d = 0; d < RADIX_DIGITS; ++d)
      counts[d * T + t] = c[d];
    __syncthreads();

    if (t == 0) {
      unsigned run = 0;
      for (int j = 0; j < RADIX_DIGITS * T; ++j) {
        unsigned v = counts[j];
        counts[j] = run;
        run += v;
      }
    }
    __syncthreads();

    for (int d = 0; d < RADIX_DIGITS; ++d)
      c[d] = counts[d * T + t];
    for (int i = begin; i < end; ++i) {
      unsigned k = src[i];
      dst[c[(k >> shift) & (RADIX_DIGITS - 1)]++] = k;
    }
    __syncthreads();

    unsigned *s = src;
    src = dst;
    dst = s;
  }
  // 32 / RADIX_BITS passes is even, so the sorted keys are back in keys.
}

// tmp: n words; counts: 16 * 1024 words (16 digits x the largest block).
void launch_radix_sort(unsigned *keys, unsigned *tmp, unsigned *counts, int n) {
  radix_sort<<<1, 1024>>>(keys, tmp, counts, n);
}
