// REQUIRES: cuda
// What the rule declines, each with its reason. The launches at the end
// give the thread counts.
// RUN: not forge-port propose %s --kernel enough --rules=column-split 2>&1 | FileCheck %s --check-prefix=ENOUGH
// RUN: not forge-port propose %s --kernel rowsum --rules=column-split 2>&1 | FileCheck %s --check-prefix=ROW
// RUN: not forge-port propose %s --kernel tri --rules=column-split 2>&1 | FileCheck %s --check-prefix=TRI
// RUN: not forge-port propose %s --kernel running --rules=column-split 2>&1 | FileCheck %s --check-prefix=SCAN
// RUN: not forge-port propose %s --kernel debug_store --rules=column-split 2>&1 | FileCheck %s --check-prefix=SIDE
// RUN: not forge-port propose %s --kernel staged --rules=column-split 2>&1 | FileCheck %s --check-prefix=SHARED
// RUN: not forge-port propose %s --kernel decay --rules=column-split 2>&1 | FileCheck %s --check-prefix=NOTRED
// RUN: not forge-port propose %s --kernel unlaunched --block 256 --rules=column-split 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not forge-port propose %s --kernel batches --rules=column-split 2>&1 | FileCheck %s --check-prefix=NESTED
// RUN: not forge-port propose %s --kernel argmax_col --rules=column-split 2>&1 | FileCheck %s --check-prefix=ARGMAX
// RUN: not forge-port propose %s --kernel odd_block --rules=column-split 2>&1 | FileCheck %s --check-prefix=BLOCK
// RUN: not forge-port propose %s --kernel short_cols --rules=column-split 2>&1 | FileCheck %s --check-prefix=SHORT

// 262144 columns: already about all the threads the GPU holds.
__global__ void enough(const float *a, float *out, int rows, int cols) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= cols) return;
  float s = 0.f;
  for (int r = 0; r < rows; ++r) s += a[(size_t)r * cols + j];
  out[j] = s;
}
// ENOUGH: forge-port: note: column-split: not applicable: the launch at line {{[0-9]+}} has 262144 threads, at least half of the 270336 the GPU holds (132 SMs x 2048): enough threads already

// A row per thread: strided across the warp.
__global__ void rowsum(const float *a, float *out, int rows, int cols) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= rows) return;
  float s = 0.f;
  for (int c = 0; c < cols; ++c) s += a[(size_t)i * cols + c];
  out[i] = s;
}
// ROW: not applicable: the loop over 'c' at line {{[0-9]+}} reads 'a[(size_t)i * cols + c]', which is strided (by cols) across the warp: the column index is not unit-stride in threadIdx.x (a row per thread is cooperative-row's)

// A bound that depends on the thread (a triangle).
__global__ void tri(const float *a, float *out, int rows, int cols) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= cols) return;
  float s = 0.f;
  for (int r = 0; r < j; ++r) s += a[(size_t)r * cols + j];
  out[j] = s;
}
// TRI: not applicable: the column loop over 'r' at line {{[0-9]+}} is bounded by '{{.*}}threadIdx.x', which depends on the thread ('threadIdx.x' differs between threads)

// A running sum written per row is a scan, not a reduction.
__global__ void running(const float *a, float *out, int rows, int cols) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= cols) return;
  float s = 0.f;
  for (int r = 0; r < rows; ++r) {
    s += a[(size_t)r * cols + j];
    out[(size_t)r * cols + j] = s;
  }
}
// SCAN: not applicable: the column loop over 'r' at line {{[0-9]+}} carries 's' from one iteration to the next, and it is not a reduction over this loop with an associative operator (+, *, min, max, &, |, ^)

// A store in the loop (a side effect the slices would split).
__global__ void debug_store(const float *a, float *out, float *last, int rows, int cols) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= cols) return;
  float s = 0.f;
  for (int r = 0; r < rows; ++r) {
    float v = a[(size_t)r * cols + j];
    s += v;
    last[j] = v;
  }
  out[j] = s;
}
// SIDE: not applicable: the column loop over 'r' at line {{[0-9]+}} writes 'last[j]': a side effect in the loop, which the slices would split or repeat

// Shared memory and a barrier already.
__global__ void staged(const float *a, float *out, int rows, int cols) {
  __shared__ float t[256];
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  t[threadIdx.x] = 1.f;
  __syncthreads();
  if (j >= cols) return;
  float s = t[threadIdx.x];
  for (int r = 0; r < rows; ++r) s += a[(size_t)r * cols + j];
  out[j] = s;
}
// SHARED: not applicable: the kernel uses shared memory ('t'): its threads cooperate already

// Not associative: an exponential decay.
__global__ void decay(const float *a, float *out, int rows, int cols) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= cols) return;
  float s = 0.f;
  for (int r = 0; r < rows; ++r) s = s * 0.5f + a[(size_t)r * cols + j];
  out[j] = s;
}
// NOTRED: not applicable: the column loop over 'r' at line {{[0-9]+}} carries 's' from one iteration to the next, and it is not a reduction

// No spec and no launch in the file: the thread count is not known.
__global__ void unlaunched(const float *a, float *out, int rows, int cols) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= cols) return;
  float s = 0.f;
  for (int r = 0; r < rows; ++r) s += a[(size_t)r * cols + j];
  out[j] = s;
}
// UNKNOWN: not applicable: the launch's thread count is not known (no spec geometry and no launch of the kernel in the file with a constant grid and block)

// The column loop inside another loop.
__global__ void batches(const float *a, float *out, int nb, int rows, int cols) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= cols) return;
  for (int b = 0; b < nb; ++b) {
    float s = 0.f;
    for (int r = 0; r < rows; ++r) s += a[((size_t)b * rows + r) * cols + j];
    out[b * cols + j] = s;
  }
}
// NESTED: not applicable: the column loop over '{{[rb]}}' at line {{[0-9]+}}

// An argmax keeps a position with the value.
__global__ void argmax_col(const float *a, int *out, int rows, int cols) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= cols) return;
  float best = -1e30f;
  int at = -1;
  for (int r = 0; r < rows; ++r) {
    float v = a[(size_t)r * cols + j];
    if (v > best) {
      best = v;
      at = r;
    }
  }
  out[j] = at;
}
// ARGMAX: not applicable: the column loop over 'r' at line {{[0-9]+}} keeps the argmax of 'best' with its position: column-split combines plain reductions only

// A block that is not whole warps, with no spec to change it.
__global__ void odd_block(const float *a, float *out, int rows, int cols) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= cols) return;
  float s = 0.f;
  for (int r = 0; r < rows; ++r) s += a[(size_t)r * cols + j];
  out[j] = s;
}
// BLOCK: not applicable: the block is 100x1x1: the rewrite needs a 1D block of whole warps, at least two

// A compile-time column of 8 rows: too short to split.
__global__ void short_cols(const float *a, float *out, int cols) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= cols) return;
  float s = 0.f;
  for (int r = 0; r < 8; ++r) s += a[r * cols + j];
  out[j] = s;
}
// SHORT: not applicable: the column loop over 'r' at line {{[0-9]+}} runs 8 times: too few to split among several threads

void host(const float *a, float *out, float *last, int *iout) {
  enough<<<1024, 256>>>(a, out, 100, 262144);
  rowsum<<<16, 256>>>(a, out, 4096, 4096);
  tri<<<16, 256>>>(a, out, 4096, 4096);
  running<<<16, 256>>>(a, out, 4096, 4096);
  debug_store<<<16, 256>>>(a, out, last, 4096, 4096);
  staged<<<16, 256>>>(a, out, 4096, 4096);
  decay<<<16, 256>>>(a, out, 4096, 4096);
  batches<<<16, 256>>>(a, out, 4, 4096, 4096);
  argmax_col<<<16, 256>>>(a, iout, 4096, 4096);
  odd_block<<<41, 100>>>(a, out, 4096, 4096);
  short_cols<<<16, 256>>>(a, out, 4096);
}
