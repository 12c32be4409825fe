// REQUIRES: cuda
// Each precondition that fails says which, and nothing is proposed.
// RUN: not forge-port propose %s --kernel unguarded --block 16,16 --rules=register-tiling 2>&1 | FileCheck %s --check-prefix=GUARD
// RUN: not forge-port propose %s --kernel mixed_axes --block 16,16 --rules=register-tiling 2>&1 | FileCheck %s --check-prefix=AXES
// RUN: not forge-port propose %s --kernel per_thread --block 16,16 --rules=register-tiling 2>&1 | FileCheck %s --check-prefix=THREAD
// RUN: not forge-port propose %s --kernel from_one --block 16,16 --rules=register-tiling 2>&1 | FileCheck %s --check-prefix=LOOP
// RUN: not forge-port propose %s --kernel axpy --block 256 --rules=register-tiling 2>&1 | FileCheck %s --check-prefix=NONE
// RUN: not forge-port propose %s --kernel row_used --block 16,16 --rules=register-tiling 2>&1 | FileCheck %s --check-prefix=USED
// RUN: not forge-port propose %s --kernel tiled --block 16,16 --rules=register-tiling 2>&1 | FileCheck %s --check-prefix=TILED
// RUN: not forge-port propose %s --kernel ikj --block 256 --rules=register-tiling 2>&1 | FileCheck %s --check-prefix=IKJ
// RUN: not forge-port propose %s --kernel thread_term --block 16,16 --rules=register-tiling 2>&1 | FileCheck %s --check-prefix=TERM
// RUN: not forge-port propose %s --kernel loads_before --block 16,16 --rules=register-tiling 2>&1 | FileCheck %s --check-prefix=LOADS
// RUN: not forge-port propose %s --kernel store_unguarded_loop --block 16,16 --rules=register-tiling 2>&1 | FileCheck %s --check-prefix=LOOPG
// GUARD: forge-port: note: register-tiling: not applicable: the product has no bounds check ('if (row < m && col < n)' around it or 'if (row >= m || col >= n) return;' before it)
// AXES: forge-port: note: register-tiling: not applicable: the model recognises no matrix product (C[i][j] = sum over k of A[i][k] * B[k][j])
// THREAD: forge-port: note: register-tiling: not applicable: the product's code is not a function of (row, col) alone: it uses 'threadIdx' directly
// LOOP: forge-port: note: register-tiling: not applicable: the accumulation loop is not 'for (int p = 0; p < k; ++p)'
// NONE: forge-port: note: register-tiling: not applicable: the model recognises no matrix product (C[i][j] = sum over k of A[i][k] * B[k][j])
// USED: forge-port: note: register-tiling: not applicable: 'row' is used outside the product (by 'out')
// TILED: forge-port: note: register-tiling: not applicable: the product is already tiled: As is read from shared memory
// IKJ: forge-port: note: register-tiling: not applicable: the product accumulates in memory (loop order ikj), not in a per-thread accumulator
// TERM: forge-port: note: register-tiling: not applicable: the store's guard term 'threadIdx.x != 3' varies with the thread but is not on the row or the column
// LOADS: forge-port: note: register-tiling: not applicable: the declaration at line {{[0-9]+}} is not of a block-uniform value without loads
// LOOPG: forge-port: note: register-tiling: not applicable: the loop runs under 'flag[0] != 0', which the store does not check

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

__global__ void tiled(const float *A, const float *B, float *C, int n) {
  __shared__ float As[16][16], Bs[16][16];
  int col = blockIdx.x * 16 + threadIdx.x;
  int row = blockIdx.y * 16 + threadIdx.y;
  float acc = 0.0f;
  for (int t = 0; t < n; t += 16) {
    As[threadIdx.y][threadIdx.x] = A[row * n + t + threadIdx.x];
    Bs[threadIdx.y][threadIdx.x] = B[(t + threadIdx.y) * n + col];
    __syncthreads();
    for (int p = 0; p < 16; ++p)
      acc += As[threadIdx.y][p] * Bs[p][threadIdx.x];
    __syncthreads();
  }
  C[row * n + col] = acc;
}

// One thread per row of C, the loops k then j: accumulates in memory.
__global__ void ikj(const float *A, const float *B, float *C, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    for (int p = 0; p < n; ++p)
      for (int j = 0; j < n; ++j)
        C[i * n + j] += A[i * n + p] * B[p * n + j];
}

__global__ void thread_term(const float *A, const float *B, float *C, int n) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row < n && col < n && threadIdx.x != 3) {
    float acc = 0.0f;
    for (int p = 0; p < n; ++p)
      acc += A[row * n + p] * B[p * n + col];
    C[row * n + col] = acc;
  }
}

// A load inside the guard would be hoisted out of it.
__global__ void loads_before(const float *A, const float *B, float *C, const float *scale,
                             int n) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row < n && col < n) {
    const float s = scale[0];
    float acc = 0.0f;
    for (int p = 0; p < n; ++p)
      acc += A[row * n + p] * B[p * n + col];
    C[row * n + col] = s * acc;
  }
}

__global__ void store_unguarded_loop(const float *A, const float *B, float *C, const int *flag,
                                     int n) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  float acc = 0.0f;
  if (flag[0] != 0)
    for (int p = 0; p < n; ++p)
      acc += A[row * n + p] * B[p * n + col];
  if (row < n && col < n)
    C[row * n + col] = acc;
}
