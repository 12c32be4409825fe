// Matrix product, each matrix's element through its own macro (the
// leading dimension inside it), alpha scaling the result.
#define A_(i, j) A[(i) * K + (j)]
#define B_(i, j) B[(i) * N + (j)]
#define C_(i, j) C[(i) * N + (j)]
__global__ void mm_elem(const float *A, const float *B, float *C, int M, int N, int K,
                        float alpha) {
  const int i = blockIdx.y * blockDim.y + threadIdx.y;
  const int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= M || j >= N)
    return;
  float s = 0.0f;
  for (int p = 0; p < K; p++)
    s += A_(i, p) * B_(p, j);
  C_(i, j) = alpha * s;
}
void run_mm_elem(const float *A, const float *B, float *C, int M, int N, int K, float alpha) {
  mm_elem<<<dim3((N + 15) / 16, (M + 15) / 16), dim3(16, 16)>>>(A, B, C, M, N, K, alpha);
}
