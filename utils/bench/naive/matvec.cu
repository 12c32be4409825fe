// y = A x for a row-major m x n matrix: one thread per row walks its row.
__global__ void gemv_rowthread(int m, int n, const float *A, const float *x, float *y) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < m) {
    const float *a = A + (size_t)row * n;
    float sum = 0.0f;
    for (int j = 0; j < n; j++)
      sum += a[j] * x[j];
    y[row] = sum;
  }
}
