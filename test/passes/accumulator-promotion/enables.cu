// REQUIRES: cuda
// After the promotion, the restructuring rules see a per-thread
// accumulator: register-tiling proposes for the matrix product that
// accumulated in C, cooperative-row for the matrix-vector product that
// accumulated in y. Before it, both decline.
// RUN: not forge-port propose %s --kernel matmul --block 16,16 --rules=register-tiling 2>&1 | FileCheck %s --check-prefix=MM-BEFORE
// RUN: forge-port propose %s --kernel matmul --block 16,16 --rules=accumulator-promotion -o %t.mm.cu
// RUN: forge-port propose %t.mm.cu --kernel matmul --block 16,16 --rules=register-tiling 2>&1 | FileCheck %s --check-prefix=MM-AFTER
// RUN: %nvcc -arch=sm_90 -c %t.mm.cu -o /dev/null
// RUN: not forge-port propose %s --kernel matvec --rules=cooperative-row 2>&1 | FileCheck %s --check-prefix=MV-BEFORE
// RUN: forge-port propose %s --kernel matvec --rules=accumulator-promotion -o %t.mv.cu
// RUN: forge-port propose %t.mv.cu --kernel matvec --rules=cooperative-row 2>&1 | FileCheck %s --check-prefix=MV-AFTER
// RUN: %nvcc -arch=sm_90 -c %t.mv.cu -o /dev/null
// RUN: forge-port propose %s --kernel matvec_load --rules=accumulator-promotion -o %t.mvl.cu
// RUN: forge-port propose %t.mvl.cu --kernel matvec_load --rules=cooperative-row 2>&1 | FileCheck %s --check-prefix=MVL-AFTER
// RUN: %nvcc -arch=sm_90 -c %t.mvl.cu -o /dev/null
// The whole table in one --apply: the promotion comes before the restructurings.
// RUN: forge-port propose %s --kernel matmul --block 16,16 --apply -o %t.all.cu 2>&1 | FileCheck %s --check-prefix=ALL
// RUN: %nvcc -arch=sm_90 -c %t.all.cu -o /dev/null

__global__ void matmul(const float *A, const float *B, float *C, int M, int N, int K) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M && col < N) {
    C[row * N + col] = 0;
    for (int k = 0; k < K; k++)
      C[row * N + col] += A[row * K + k] * B[k * N + col];
  }
}
// MM-BEFORE: register-tiling: not applicable: the product accumulates in memory (loop order ijk), not in a per-thread accumulator
// MM-AFTER: # expert:register-tiling:
// ALL: applied expert:accumulator-promotion: 'C[row * N + col]' kept in a register 'acc'
// ALL: applied expert:register-tiling:

__global__ void matvec(const float *A, const float *x, float *y, int m, int n) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < m) {
    y[row] = 0.0f;
    for (int k = 0; k < n; ++k)
      y[row] += A[row * n + k] * x[k];
  }
}
// MV-BEFORE: cooperative-row: not applicable:
// MV-AFTER: # expert:cooperative-row: one warp per row for the matrix-vector product y = A * x

// y pre-set by the host: the register starts from a load of y[row].
__global__ void matvec_load(const float *A, const float *x, float *y, int m, int n) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < m) {
    for (int k = 0; k < n; ++k)
      y[row] += A[row * n + k] * x[k];
  }
}
// MVL-AFTER: # expert:cooperative-row: one warp per row for the matrix-vector product y = A * x

void host(int m, int n, int k) {
  float *A, *B, *C, *x, *y;
  cudaMalloc(&A, sizeof(float) * m * k);
  cudaMalloc(&B, sizeof(float) * k * n);
  cudaMalloc(&C, sizeof(float) * m * n);
  cudaMalloc(&x, sizeof(float) * k);
  cudaMalloc(&y, sizeof(float) * m);
  matmul<<<dim3((n + 15) / 16, (m + 15) / 16), dim3(16, 16)>>>(A, B, C, m, n, k);
  matvec<<<(m + 255) / 256, 256>>>(A, x, y, m, k);
  matvec_load<<<(m + 255) / 256, 256>>>(A, x, y, m, k);
}
