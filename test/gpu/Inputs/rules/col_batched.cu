// Batched column sums of doubles along a 2D grid (blockIdx.y is the
// matrix), a bias counted once, size_t flat index stepping by cols, and a
// count of the positive elements.
__global__ void col_batched(const double *a, const double *bias, double *out, int *pos,
                            size_t rows, size_t cols) {
  size_t j = threadIdx.x + (size_t)blockIdx.x * blockDim.x;
  size_t b = blockIdx.y;
  if (j >= cols)
    return;
  const double *m = a + b * rows * cols;
  double s = bias[j];
  int n = 0;
  for (size_t e = j; e < rows * cols; e += cols) {
    s += m[e];
    n += m[e] > 0;
  }
  out[b * cols + j] = s;
  pos[b * cols + j] = n;
}
inline void col_batched_example(const double *a, const double *bias, double *out, int *pos) {
  col_batched<<<dim3(16, 4), 256>>>(a, bias, out, pos, 8192, 4096);
}
