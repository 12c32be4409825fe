// C = A B, one thread per output, accumulating straight into C after
// zeroing it (loop order i, j, k over global memory).
__global__ void matmul(const float *A, const float *B, float *C, int M, int N, int K) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M && col < N) {
    C[row * N + col] = 0;
    for (int k = 0; k < K; k++)
      C[row * N + col] += A[row * K + k] * B[k * N + col];
  }
}
