// Inclusive prefix sum of each row, one thread per row.
__global__ void row_cumsum(const float *in, float *out, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  float run = 0.f;
  for (int c = 0; c < cols; ++c) {
    run += in[(size_t)r * cols + c];
    out[(size_t)r * cols + c] = run;
  }
}
