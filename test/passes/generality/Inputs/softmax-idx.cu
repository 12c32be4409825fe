// Row softmax, one thread per row, the index alone through a macro.
#define IDX(r, c) ((size_t)(r) * ncols + (c))
__global__ void softmax_idx(const float *x, float *y, int nrows, int ncols) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < nrows) {
    float m = x[IDX(row, 0)];
    for (int j = 1; j < ncols; j++)
      m = fmaxf(m, x[IDX(row, j)]);
    float sum = 0.0f;
    for (int j = 0; j < ncols; j++) {
      float e = expf(x[IDX(row, j)] - m);
      y[IDX(row, j)] = e;
      sum += e;
    }
    for (int j = 0; j < ncols; j++)
      y[IDX(row, j)] /= sum;
  }
}
void run_softmax_idx(const float *x, float *y, int nrows, int ncols) {
  softmax_idx<<<(nrows + 255) / 256, 256>>>(x, y, nrows, ncols);
}
