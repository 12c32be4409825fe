// Variance of each row from a sum and a sum of squares, one thread per row.
__global__ void row_variance(const float *data, float *var, int nrows, int ncols) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < nrows) {
    float sum = 0.0f, sumsq = 0.0f;
    for (int k = 0; k < ncols; ++k) {
      float v = data[row * ncols + k];
      sum += v;
      sumsq += v * v;
    }
    float m = sum / ncols;
    var[row] = sumsq / ncols - m * m;
  }
}
