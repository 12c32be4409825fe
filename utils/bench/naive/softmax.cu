// Row softmax of a rows x cols matrix: one thread per row, three passes.
__global__ void softmax_rows(const float *logits, float *probs, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows)
    return;
  const float *in = logits + (size_t)r * cols;
  float *out = probs + (size_t)r * cols;
  float m = -INFINITY;
  for (int c = 0; c < cols; ++c)
    m = fmaxf(m, in[c]);
  float s = 0.f;
  for (int c = 0; c < cols; ++c)
    s += expf(in[c] - m);
  float inv = 1.f / s;
  for (int c = 0; c < cols; ++c)
    out[c] = expf(in[c] - m) * inv;
}
