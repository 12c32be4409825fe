// A 3-pass softmax over each row, one thread per row.
__global__ void row_softmax(const float *x, float *y, int rows, int cols) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= rows) return;
  const float *xr = x + (size_t)row * cols;
  float *yr = y + (size_t)row * cols;
  float mx = -INFINITY;
  for (int j = 0; j < cols; ++j)
    mx = fmaxf(mx, xr[j]);
  float sum = 0.f;
  for (int j = 0; j < cols; ++j)
    sum += expf(xr[j] - mx);
  for (int j = 0; j < cols; ++j)
    yr[j] = expf(xr[j] - mx) / sum;
}
