// PMPP-style matrix product: the sum accumulated under one guard, stored
// under a second copy of it.
void __global__ mm_pmpp(float *A, float *B, float *C, int M, int N, int K) {
  int col = blockDim.x * blockIdx.x + threadIdx.x;
  int row = blockDim.y * blockIdx.y + threadIdx.y;
  float sum = 0.0f;
  if (row < M && col < N) {
    for (int k = 0; k < K; ++k)
      sum += A[row * K + k] * B[k * N + col];
  }
  if (row < M && col < N)
    C[row * N + col] = sum;
}
void run_mm_pmpp(float *A, float *B, float *C, int M, int N, int K) {
  mm_pmpp<<<dim3((N + 15) / 16, (M + 15) / 16), dim3(16, 16)>>>(A, B, C, M, N, K);
}
