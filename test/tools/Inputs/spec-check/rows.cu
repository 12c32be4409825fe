// Row sums of a rows x cols matrix, one thread per row. Its spec
// (rows-short.json) gives the matrix one row too few, rows.json the right count:
// with the first, the last row's thread reads past the end.
__global__ void rows_sum(const float *a, float *out, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows)
    return;
  float s = 0;
  for (int c = 0; c < cols; ++c)
    s += a[r * cols + c];
  out[r] = s;
}
