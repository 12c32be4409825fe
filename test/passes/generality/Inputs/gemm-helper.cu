// Matrix product with the output coordinates from __device__ helpers.
__device__ int out_row() { return blockIdx.y * blockDim.y + threadIdx.y; }
__device__ int out_col() { return blockIdx.x * blockDim.x + threadIdx.x; }
__global__ void mm_gid(const float *A, const float *B, float *C, int M, int N, int K) {
  int r = out_row(), c = out_col();
  if (r < M && c < N) {
    float acc = 0.0f;
    for (int k = 0; k < K; ++k)
      acc += A[r * K + k] * B[k * N + c];
    C[r * N + c] = acc;
  }
}
void run_mm_gid(const float *A, const float *B, float *C, int M, int N, int K) {
  mm_gid<<<dim3((N + 15) / 16, (M + 15) / 16), dim3(16, 16)>>>(A, B, C, M, N, K);
}
