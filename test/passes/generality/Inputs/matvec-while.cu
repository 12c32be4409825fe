// y = A x, one thread per row, the row walked with a while loop and an
// unsigned column.
__global__ void mv_while(const float *A, const float *x, float *y, int m, int n) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < m) {
    float acc = 0.0f;
    unsigned j = 0;
    while (j < n) {
      acc += A[row * n + j] * x[j];
      j++;
    }
    y[row] = acc;
  }
}
void run_mv_while(const float *A, const float *x, float *y, int m, int n) { mv_while<<<(m + 127) / 128, 128>>>(A, x, y, m, n); }
