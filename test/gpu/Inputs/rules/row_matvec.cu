// A matrix-vector product, one thread per row (row-major A).
__global__ void row_matvec(const float *A, const float *x, float *y, int m, int n) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < m) {
    float sum = 0.0f;
    for (int k = 0; k < n; ++k)
      sum += A[row * n + k] * x[k];
    y[row] = sum;
  }
}
