// Benchmark op: merge sort of 32-bit unsigned keys (first-round kernel).
// Sorts keys[0..n) ascending in ONE launch that uses the whole GPU.
//
// Why one launch, and how the passes are ordered without a grid-wide
// barrier: see radix_sort.cu. Blocks take tickets (sync[0]); phase q is
// tickets [q * B, (q + 1) * B), and a block of phase q waits until sync[1],
// the number of finished blocks, reaches q * B.
//
// Algorithm: bottom-up merge sort, run width 1, 2, 4, ... (P passes, P =
// ceil(log2 n), at least 1), ping-ponging keys -> tmp -> keys; when P is
// odd one more phase copies tmp back to keys. Each pass places every
// element independently: an element at index a of its left run goes to
// a + (number of elements of the right run < it), one at index b of its
// right run to b + (number of elements of the left run <= it), both counted
// by a binary search in the other run. Equal keys keep the left run first,
// so the sort is stable. A thread places MERGE_ITEMS elements, blockDim.x
// apart; a block covers blockDim.x * MERGE_ITEMS consecutive elements.
// Every binary search goes to global memory: no shared memory, no
// merge-path partitioning, no tiles sorted in registers. Deliberately naive.
//
// So grid = (P + P % 2) * B with B = ceil(n / (blockDim.x * 8)); a launch
// with another grid traps. For n = 2^24, P = 24 and B = 8192 at 256 threads.
//
// Data written by other blocks of this launch is read with __ldcg (through
// L2): L1 caches are not coherent between SMs.
//
// Scratch: tmp (n words), sync (2 words). sync must be 0 before the first
// launch; the last block to finish sets it back to 0, so the kernel can be
// launched again on its own leftover scratch.
#define MERGE_ITEMS 8

// Merge passes for n keys: ceil(log2 n), at least 1.
__host__ __device__ inline int merge_passes(int n) {
  int p = 0;
  while (p < 31 && (1LL << p) < (long long)n)
    ++p;
  return p < 1 ? 1 : p;
}

// Phases: the passes, plus the copy back when their number is odd.
__host__ __device__ inline int merge_phases(int n) {
  int p = merge_passes(n);
  return p + p % 2;
}

// Blocks per phase.
__host__ __device__ inline int merge_blocks(int n, int block) {
  long long b = ((long long)n + (long long)block * MERGE_ITEMS - 1) /
                ((long long)block * MERGE_ITEMS);
  return b < 1 ? 1 : (int)b;
}

__host__ __device__ inline unsigned merge_load(const unsigned *p) {
#ifdef __CUDA_ARCH__
  return __ldcg(p);
#else
  return *p;
#endif
}

// One element of the pass with runs of `width`: src[i] to its place in dst.
__host__ __device__ inline void merge_place(const unsigned *src,
                                            unsigned *dst, int n,
                                            long long width, long long i) {
  unsigned x = merge_load(src + i);
  long long base = i / (2 * width) * (2 * width);
  long long mid = base + width < n ? base + width : n;
  long long end = base + 2 * width < n ? base + 2 * width : n;
  long long lo, hi;
  if (i < mid) {
    // Left run: count the right run's elements < x.
    lo = mid;
    hi = end;
    while (lo < hi) {
      long long m = (lo + hi) / 2;
      if (merge_load(src + m) < x)
        lo = m + 1;
      else
        hi = m;
    }
    dst[i + (lo - mid)] = x;
  } else {
    // Right run: count the left run's elements <= x.
    lo = base;
    hi = mid;
    while (lo < hi) {
      long long m = (lo + hi) / 2;
      if (merge_load(src + m) <= x)
        lo = m + 1;
      else
        hi = m;
    }
    dst[base + (i - mid) + (lo - base)] = x;
  }
}

__global__ void merge_sort(unsigned *keys, unsigned *tmp, unsigned *sync,
                           int n) {
  __shared__ unsigned s_ticket;
  int passes = merge_passes(n);
  int B = merge_blocks(n, blockDim.x);
  unsigned total = (unsigned)merge_phases(n) * B;
  if (gridDim.x != total)
    __trap(); // the spec's grid does not match this kernel's layout

  if (threadIdx.x == 0)
    s_ticket = atomicAdd(&sync[0], 1u);
  __syncthreads();
  int phase = s_ticket / B, chunk = s_ticket % B;

  // Wait for every block of the earlier phases.
  if (threadIdx.x == 0) {
    unsigned need = (unsigned)phase * B;
    while (*(volatile unsigned *)&sync[1] < need)
      __nanosleep(64);
    __threadfence();
  }
  __syncthreads();

  long long first = (long long)chunk * blockDim.x * MERGE_ITEMS;
  if (phase < passes) {
    const unsigned *src = (phase % 2 == 0) ? keys : tmp;
    unsigned *dst = (phase % 2 == 0) ? tmp : keys;
    for (int k = 0; k < MERGE_ITEMS; ++k) {
      long long i = first + (long long)k * blockDim.x + threadIdx.x;
      if (i < n)
        merge_place(src, dst, n, 1LL << phase, i);
    }
  } else {
    // An odd number of passes left the result in tmp.
    for (int k = 0; k < MERGE_ITEMS; ++k) {
      long long i = first + (long long)k * blockDim.x + threadIdx.x;
      if (i < n)
        keys[i] = merge_load(tmp + i);
    }
  }

  // Publish: this block is done. The last block resets the scratch.
  __syncthreads();
  if (threadIdx.x == 0) {
    __threadfence();
    if (atomicAdd(&sync[1], 1u) + 1u == total) {
      atomicExch(&sync[0], 0u);
      atomicExch(&sync[1], 0u);
    }
  }
}

// tmp: n words; sync: 2 words, zero before the first launch (the kernel
// leaves them zero).
void launch_merge_sort(unsigned *keys, unsigned *tmp, unsigned *sync, int n) {
  const int block = 256;
  int grid = merge_phases(n) * merge_blocks(n, block);
  merge_sort<<<grid, block>>>(keys, tmp, sync, n);
}
