// A double matrix-vector product with a bias, size_t indices and an early
// return, one thread per row.
__global__ void row_matvec_f64(const double *A, const double *x, const double *b, double *y,
                               size_t rows, size_t cols) {
  size_t r = threadIdx.x + (size_t)blockDim.x * blockIdx.x;
  if (r >= rows)
    return;
  double acc = b[r];
  for (size_t j = 0; j < cols; j++)
    acc += A[r * cols + j] * x[j];
  y[r] = acc;
}
