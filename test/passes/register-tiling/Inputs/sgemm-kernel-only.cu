__global__ void sgemm(const float *A, const float *B, float *C, int m, int n,
                      int k) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row < m && col < n) {
    float acc = 0.0f;
    for (int p = 0; p < k; ++p)
      acc += A[(size_t)row * k + p] * B[(size_t)p * n + col];
    C[(size_t)row * n + col] = acc;
  }
}
