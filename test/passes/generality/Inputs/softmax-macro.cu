// Row softmax, one thread per row, elements through a macro.
#define AT(p, r, c) p[(size_t)(r) * cols + (c)]
__global__ void softmax_m(const float *in, float *out, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  float mx = -INFINITY;
  for (int c = 0; c < cols; ++c) mx = fmaxf(mx, AT(in, r, c));
  float s = 0.0f;
  for (int c = 0; c < cols; ++c) s += __expf(AT(in, r, c) - mx);
  for (int c = 0; c < cols; ++c) AT(out, r, c) = __expf(AT(in, r, c) - mx) / s;
}
void run_softmax_m(const float *in, float *out, int rows, int cols) { softmax_m<<<(rows + 127) / 128, 128>>>(in, out, rows, cols); }
