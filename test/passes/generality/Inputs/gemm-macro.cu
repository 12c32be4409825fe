// Matrix product with row-major access macros taking the leading dimension.
#define RM(p, r, c, ld) p[(r) * (ld) + (c)]
__global__ void mm_macro(const float *A, const float *B, float *C, int M, int N, int K) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  int r = blockIdx.y * blockDim.y + threadIdx.y;
  if (r >= M || c >= N) return;
  float acc = 0.0f;
  for (int k = 0; k < K; ++k)
    acc += RM(A, r, k, K) * RM(B, k, c, N);
  RM(C, r, c, N) = acc;
}
void run_mm_macro(const float *A, const float *B, float *C, int M, int N, int K) {
  mm_macro<<<dim3((N + 15) / 16, (M + 15) / 16), dim3(16, 16)>>>(A, B, C, M, N, K);
}
