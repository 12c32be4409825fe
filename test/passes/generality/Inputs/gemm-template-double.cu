// Matrix product of any element type, launched as mm_td<double>; B read
// transposed (B is N x K).
template <typename T>
__global__ void mm_td(const T *A, const T *Bt, T *C, int M, int N, int K) {
  int r = blockIdx.y * blockDim.y + threadIdx.y;
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < M && c < N) {
    T acc = T(0);
    for (int k = 0; k < K; ++k)
      acc += A[r * K + k] * Bt[c * K + k];
    C[r * N + c] = acc;
  }
}
void run_mm_td(const double *A, const double *Bt, double *C, int M, int N, int K) {
  mm_td<double><<<dim3((N + 15) / 16, (M + 15) / 16), dim3(16, 16)>>>(A, Bt, C, M, N, K);
}
