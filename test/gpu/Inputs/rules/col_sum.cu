// A column sum scaled after the loop, one thread per column.
__global__ void col_sum(const float *a, float *out, int rows, int cols, float scale) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= cols)
    return;
  float s = 0.f;
  for (int r = 0; r < rows; ++r)
    s += a[(size_t)r * cols + j];
  out[j] = s * scale;
}
// The launch the rule reads the thread count from: 4096 columns.
inline void col_sum_example(const float *a, float *out) { col_sum<<<16, 256>>>(a, out, 16384, 4096, 1.f); }
