// y = A x with one thread per row, accumulating straight into y (which the
// caller zeroes), the row offset in a size_t local.
__global__ void matvec_acc(const float *A, const float *x, float *y, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    size_t base = (size_t)r * cols;
    for (int k = 0; k < cols; ++k)
      y[r] += A[base + k] * x[k];
  }
}
