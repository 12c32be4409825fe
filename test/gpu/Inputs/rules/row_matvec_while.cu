// A matrix-vector product, one thread per row, the row walked by a while
// loop whose unsigned column starts in the statement before it.
__global__ void row_matvec_while(const float *A, const float *x, float *y, int m, int n) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < m) {
    float sum = 0.0f;
    unsigned k = 0;
    while (k < n) {
      sum += A[row * n + k] * x[k];
      k++;
    }
    y[row] = sum;
  }
}
