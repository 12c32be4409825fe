// Matrix product, the row-major index alone through a macro.
#define IDX(i, j, ld) ((i) * (ld) + (j))
__global__ void mm_idx(const float *A, const float *B, float *C, int M, int N, int K) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M && col < N) {
    float sum = 0;
    for (int k = 0; k < K; ++k)
      sum += A[IDX(row, k, K)] * B[IDX(k, col, N)];
    C[IDX(row, col, N)] = sum;
  }
}
void run_mm_idx(const float *A, const float *B, float *C, int M, int N, int K) {
  mm_idx<<<dim3((N + 15) / 16, (M + 15) / 16), dim3(16, 16)>>>(A, B, C, M, N, K);
}
