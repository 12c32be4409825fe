// A naive GEMM as a textbook writes it: the accumulator declared first,
// the loop and the store under two separate, identical bounds checks.
__global__ void sgemm_pmpp(const float *A, const float *B, float *C, int m, int n, int k) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  float acc = 0;
  if (row < m && col < n) {
    for (int p = 0; p < k; ++p)
      acc += A[row * k + p] * B[p * n + col];
  }
  if (row < m && col < n)
    C[row * n + col] = acc;
}
