// Per-thread column loops whose iterations are independent (no value
// carried, each iteration stores its own elements), for column-split's
// independent form (test/gpu/rules/column-split-independent.cu and the
// CPU emulation in test/passes/column-split/independent.cu).

// A vertical 5-point average: one thread per column walks the rows.
__global__ void col_smooth(const float *in, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  if (x >= w) return;
  for (int y = 2; y < h - 2; ++y)
    out[y * w + x] = 0.2f * (in[(y - 2) * w + x] + in[(y - 1) * w + x] + in[y * w + x] +
                             in[(y + 1) * w + x] + in[(y + 2) * w + x]);
}

// Scale each column in place by its factor, walking a pointer down it.
__global__ void col_scale_walk(float *a, const float *f, int rows, int cols) {
  int c = threadIdx.x + blockIdx.x * blockDim.x;
  if (c < cols) {
    float *p = a + c;
    const float s = f[c];
    for (int r = 0; r < rows; ++r, p += cols)
      *p = *p * s;
  }
}

// Doubles a column, then marks the column done: what follows the loop runs
// once, after every row is written.
__global__ void col_tail(const float *in, float *out, int *done, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  if (x < w) {
    for (int y = 0; y < h; ++y)
      out[(size_t)y * w + x] = 2.f * in[(size_t)y * w + x];
    done[x] = done[x] + 1;
  }
}
