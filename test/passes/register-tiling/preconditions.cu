// REQUIRES: cuda
// Each precondition that fails says which, and nothing is proposed.
// RUN: not forge-port propose %s --kernel unguarded --block 16,16 --rules=register-tiling 2>&1 | FileCheck %s --check-prefix=GUARD
// RUN: not forge-port propose %s --kernel mixed_axes --block 16,16 --rules=register-tiling 2>&1 | FileCheck %s --check-prefix=AXES
// RUN: not forge-port propose %s --kernel per_thread --block 16,16 --rules=register-tiling 2>&1 | FileCheck %s --check-prefix=THREAD
// RUN: not forge-port propose %s --kernel from_one --block 16,16 --rules=register-tiling 2>&1 | FileCheck %s --check-prefix=LOOP
// RUN: not forge-port propose %s --kernel axpy --block 256 --rules=register-tiling 2>&1 | FileCheck %s --check-prefix=NONE
// RUN: not forge-port propose %s --kernel row_used --block 16,16 --rules=register-tiling 2>&1 | FileCheck %s --check-prefix=USED
// GUARD: forge-port: note: register-tiling: not applicable: the product has no bounds check ('if (row < m && col < n)' around it or 'if (row >= m || col >= n) return;' before it)
// AXES: forge-port: note: register-tiling: not applicable: the operands' indices are not a row 'blockIdx.y * blockDim.y + threadIdx.y' and a column 'blockIdx.x * blockDim.x + threadIdx.x'
// THREAD: forge-port: note: register-tiling: not applicable: the product's code is not a function of (row, col) alone: it uses 'threadIdx' directly
// LOOP: forge-port: note: register-tiling: not applicable: the accumulation loop is not 'for (int p = 0; p < k; ++p)'
// NONE: forge-port: note: register-tiling: not applicable: no loop accumulates 'acc += A[...] * B[...]' (a naive matrix product)
// USED: forge-port: note: register-tiling: not applicable: 'row' is used outside the product (by 'out')

__global__ void unguarded(const float *A, const float *B, float *C, int n) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  float acc = 0.0f;
  for (int p = 0; p < n; ++p)
    acc += A[row * n + p] * B[p * n + col];
  C[row * n + col] = acc;
}

__global__ void mixed_axes(const float *A, const float *B, float *C, int n) {
  int row = blockIdx.y * blockDim.y + threadIdx.x;
  int col = blockIdx.x * blockDim.x + threadIdx.y;
  if (row < n && col < n) {
    float acc = 0.0f;
    for (int p = 0; p < n; ++p)
      acc += A[row * n + p] * B[p * n + col];
    C[row * n + col] = acc;
  }
}

__global__ void per_thread(const float *A, const float *B, float *C, int n) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row < n && col < n) {
    float acc = 0.0f;
    for (int p = 0; p < n; ++p)
      acc += A[row * n + p] * B[p * n + col];
    C[row * n + col] = acc + threadIdx.x;
  }
}

__global__ void from_one(const float *A, const float *B, float *C, int n) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row < n && col < n) {
    float acc = 0.0f;
    for (int p = 1; p < n; ++p)
      acc += A[row * n + p] * B[p * n + col];
    C[row * n + col] = acc;
  }
}

__global__ void axpy(const float *x, float *y, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] += a * x[i];
}

__global__ void row_used(const float *A, const float *B, float *C, int *rows, int n) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  int row = blockIdx.y * blockDim.y + threadIdx.y, out = row * n;
  if (row < n && col < n) {
    float acc = 0.0f;
    for (int p = 0; p < n; ++p)
      acc += A[row * n + p] * B[p * n + col];
    C[row * n + col] = acc;
  }
}
