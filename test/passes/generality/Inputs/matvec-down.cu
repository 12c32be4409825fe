// y = A x, one thread per row, the row walked backwards.
__global__ void mv_down(const float *A, const float *x, float *y, int m, int n) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < m) {
    float acc = 0.0f;
    for (int j = n - 1; j >= 0; --j)
      acc += A[row * n + j] * x[j];
    y[row] = acc;
  }
}
void run_mv_down(const float *A, const float *x, float *y, int m, int n) { mv_down<<<(m + 127) / 128, 128>>>(A, x, y, m, n); }
