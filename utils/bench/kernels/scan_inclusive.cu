// Benchmark op: inclusive prefix sum (first-round kernel).
// y[i] = x[0] + ... + x[i] for n floats, in ONE launch: a single-pass
// chained scan.
//
// - Each block takes a ticket from *ticket (atomicAdd) and scans the chunk
//   ticket % gridDim.x, so chunks are handed out in the order blocks start:
//   the block scanning chunk c - 1 is always already running, and waiting
//   for it cannot deadlock, whatever order the hardware schedules blocks in.
// - Each thread sums SCAN_ITEMS consecutive elements sequentially; the block
//   scans the per-thread sums with a naive Hillis-Steele scan in shared
//   memory.
// - Thread 0 spins on flags[c - 1] until the previous chunk has published its
//   inclusive prefix, then publishes its own in flags[c]. A flag is one
//   64-bit word, (generation << 32) | float bits, written with a single
//   store, so the value and its "ready" mark become visible together.
//
// Generations make the kernel safe to launch repeatedly without clearing
// its scratch: launch L after the scratch was zeroed takes tickets
// L * gridDim.x ... and publishes generation L + 1, so flags left by an
// earlier launch never look ready. *ticket and flags[] must be 0 before the
// first launch (the spec's init: they are inout scratch buffers, refilled
// with 0 before each batch of launches, and their final contents are
// excluded from the check by a huge tolerance). flags needs at least
// gridDim.x words.
//
// Floating-point sums are not associative: the result depends on the chunk
// size (BLOCK * SCAN_ITEMS), hence a relative tolerance of 1e-4.
#define SCAN_ITEMS 8

__global__ void scan_inclusive(const float *x, float *y, unsigned *ticket,
                               unsigned long long *flags, int n) {
  __shared__ float partial[1024];
  __shared__ unsigned s_chunk, s_gen;
  __shared__ float s_prefix;
  int tid = threadIdx.x;
  if (tid == 0) {
    unsigned t = atomicAdd(ticket, 1u);
    s_chunk = t % gridDim.x;
    s_gen = t / gridDim.x + 1;
  }
  __syncthreads();
  unsigned chunk = s_chunk, gen = s_gen;

  // Per-thread sequential sum of SCAN_ITEMS consecutive elements.
  size_t base = ((size_t)chunk * blockDim.x + tid) * SCAN_ITEMS;
  float v[SCAN_ITEMS];
  float sum = 0.0f;
  for (int k = 0; k < SCAN_ITEMS; ++k) {
    size_t i = base + k;
    v[k] = i < (size_t)n ? x[i] : 0.0f;
    sum += v[k];
  }
  partial[tid] = sum;
  __syncthreads();

  // Hillis-Steele inclusive scan of the per-thread sums.
  for (int off = 1; off < blockDim.x; off <<= 1) {
    float t = tid >= off ? partial[tid - off] : 0.0f;
    __syncthreads();
    partial[tid] += t;
    __syncthreads();
  }

  // Chain: wait for the previous chunk's inclusive prefix, publish ours.
  if (tid == 0) {
    float prefix = 0.0f;
    if (chunk > 0) {
      volatile unsigned long long *prev = flags + chunk - 1;
      unsigned long long word;
      do {
        word = *prev;
      } while ((unsigned)(word >> 32) != gen);
      prefix = __uint_as_float((unsigned)word);
    }
    float inclusive = prefix + partial[blockDim.x - 1];
    ((volatile unsigned long long *)flags)[chunk] =
        ((unsigned long long)gen << 32) | __float_as_uint(inclusive);
    s_prefix = prefix;
  }
  __syncthreads();

  float run = s_prefix + (tid > 0 ? partial[tid - 1] : 0.0f);
  for (int k = 0; k < SCAN_ITEMS; ++k) {
    size_t i = base + k;
    run += v[k];
    if (i < (size_t)n)
      y[i] = run;
  }
}

// ticket: 1 word, flags: at least ceil(n / (block * SCAN_ITEMS)) words,
// both zeroed before the first launch.
void launch_scan_inclusive(const float *x, float *y, unsigned *ticket,
                           unsigned long long *flags, int n) {
  const int block = 256;
  int grid = (n + block * SCAN_ITEMS - 1) / (block * SCAN_ITEMS);
  scan_inclusive<<<grid, block>>>(x, y, ticket, flags, n);
}
