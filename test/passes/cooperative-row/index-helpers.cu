// Index helpers that read builtins (`row_of(base)` returning
// `base + blockIdx.x * blockDim.x + threadIdx.x`): each call is written in
// place with the helper's expression, the call's arguments for its
// parameters, so that its builtins take the original thread's values like
// the body's own; the fallback keeps the call (it runs on the original
// blocks). Declined, with the reason: a helper with a statement besides its
// return, and a helper whose argument reads a builtin.
// RUN: forge-port propose %s --kernel rows_helper --block 128 --rules=cooperative-row -o %t.cu -- %cuda_mock_flags 2>&1 | FileCheck %s --check-prefix=APPLIED
// RUN: FileCheck %s --check-prefix=SRC --input-file=%t.cu
// RUN: not forge-port propose %s --kernel two_statements --block 128 --rules=cooperative-row -- %cuda_mock_flags 2>&1 | FileCheck %s --check-prefix=TWO
// RUN: not forge-port propose %s --kernel builtin_argument --block 128 --rules=cooperative-row -- %cuda_mock_flags 2>&1 | FileCheck %s --check-prefix=ARG

__device__ int row_of(int base) { return base + blockIdx.x * blockDim.x + threadIdx.x; }
__device__ int stride_of() { return blockDim.x * gridDim.x; }

__global__ void rows_helper(const float *a, float *s, int rows, int cols) {
  for (int r = row_of(0); r < rows; r += stride_of()) {
    float t = 0;
    for (int c = 0; c < cols; ++c)
      t += a[(size_t)r * cols + c];
    s[r] = t;
  }
}
// APPLIED: note: applied expert:cooperative-row
// The fallback keeps the calls, with gridDim.x of the original grid:
// SRC:      for (int r = row_of(0); r < rows; r += (blockDim.x * (gridDim.x / 32))) {
// The warp path: the helpers' expressions with the original thread's values.
// SRC:      for (int r = ((0) + orig_bid * blockDim.x + orig_tid); r < rows; r += (blockDim.x * orig_grid)) {

__device__ int counted(int *calls) {
  ++*calls;
  return blockIdx.x * blockDim.x + threadIdx.x;
}
__global__ void two_statements(const float *a, float *s, int *calls, int rows, int cols) {
  int r = counted(calls);
  if (r < rows) {
    float t = 0;
    for (int c = 0; c < cols; ++c)
      t += a[(size_t)r * cols + c];
    s[r] = t;
  }
}
// The model sees no row through a helper with a statement besides its return:
// TWO: cooperative-row: not applicable: no per-thread row loop

__device__ int plus_block(int t) { return t + blockIdx.x * blockDim.x; }
__global__ void builtin_argument(const float *a, float *s, int rows, int cols) {
  int r = plus_block(threadIdx.x);
  if (r < rows) {
    float t = 0;
    for (int c = 0; c < cols; ++c)
      t += a[(size_t)r * cols + c];
    s[r] = t;
  }
}
// ARG: cooperative-row: not applicable: a device function the kernel calls reads 'blockIdx.x'
