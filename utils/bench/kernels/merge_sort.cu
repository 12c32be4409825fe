// Benchmark op: merge sort of 32-bit unsigned keys (first-round kernel).
// Sorts keys[0..n) ascending in ONE launch of ONE block.
//
// Why one block: see radix_sort.cu. Each merge pass needs the previous one
// finished, and the only barrier a single launch has without cooperative
// launch is __syncthreads(), so the whole sort runs in one block and the
// other SMs idle: a deliberately weak first round (see README.md).
//
// Algorithm: bottom-up merge sort, run width 1, 2, 4, ... until one run
// covers the array, ping-ponging keys <-> tmp (a final copy brings the
// result back to keys when the number of passes is odd; for n = 2^24 it is
// even). In every pass the output is cut into blockDim.x equal contiguous
// segments, one per thread; a thread finds, by binary search along the
// merge path, where its segment starts in the two input runs it merges,
// then merges sequentially. Ties take the left run first (stable).
// tmp (n words) is scratch: its contents on entry do not matter and on exit
// are not part of the result.
__device__ void merge_pass(const unsigned *src, unsigned *dst, int n,
                           int width) {
  int T = blockDim.x;
  int seg = (n + T - 1) / T;
  int p = min((int)threadIdx.x * seg, n);
  int pend = min(p + seg, n);
  while (p < pend) {
    // The pair of runs that output position p belongs to.
    long long base = (long long)(p / (2LL * width)) * (2LL * width);
    int aBeg = (int)base;
    int aEnd = (int)min(base + width, (long long)n);
    int bEnd = (int)min(base + 2LL * width, (long long)n);
    int lenA = aEnd - aBeg, lenB = bEnd - aEnd;
    const unsigned *A = src + aBeg, *B = src + aEnd;
    int stop = min(pend, bEnd);

    // Merge path: how many of the first `diag` outputs come from A.
    int diag = p - aBeg;
    int lo = max(0, diag - lenB), hi = min(diag, lenA);
    while (lo < hi) {
      int mid = (lo + hi) / 2;
      if (A[mid] <= B[diag - 1 - mid])
        lo = mid + 1;
      else
        hi = mid;
    }
    int i = lo, j = diag - lo;

    for (; p < stop; ++p) {
      if (i < lenA && (j >= lenB || A[i] <= B[j]))
        dst[p] = A[i++];
      else
        dst[p] = B[j++];
    }
  }
}

__global__ void merge_sort(unsigned *keys, unsigned *tmp, int n) {
  unsigned *src = keys, *dst = tmp;
  for (long long width = 1; width < n; width *= 2) {
    merge_pass(src, dst, n, (int)width);
    __syncthreads();
    unsigned *s = src;
    src = dst;
    dst = s;
  }
  if (src != keys) {
    for (int i = threadIdx.x; i < n; i += blockDim.x)
      keys[i] = src[i];
  }
}

// tmp: n words.
void launch_merge_sort(unsigned *keys, unsigned *tmp, int n) {
  merge_sort<<<1, 1024>>>(keys, tmp, n);
}
