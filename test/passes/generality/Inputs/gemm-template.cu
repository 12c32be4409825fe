// Matrix product of any element type, launched as mm_t<float>.
template <typename T>
__global__ void mm_t(const T *A, const T *B, T *C, int M, int N, int K) {
  int r = blockIdx.y * blockDim.y + threadIdx.y;
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < M && c < N) {
    T acc = 0;
    for (int k = 0; k < K; k++)
      acc += A[r * K + k] * B[k * N + c];
    C[r * N + c] = acc;
  }
}
void run_mm_t(const float *A, const float *B, float *C, int M, int N, int K) {
  mm_t<float><<<dim3((N + 15) / 16, (M + 15) / 16), dim3(16, 16)>>>(A, B, C, M, N, K);
}
