// Benchmark op: 1D stencil of radius 3 (first-round kernel).
// out[i] = sum_{j=-3..3} w[j + 3] * x[i + j] for n floats, with x taken as 0
// outside [0, n) (zero padding). The 7 weights are an input buffer.
// One thread per output, every tap read straight from global memory.
#define STENCIL_RADIUS 3

__global__ void stencil1d(const float *x, const float *w, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float acc = 0.0f;
    for (int j = -STENCIL_RADIUS; j <= STENCIL_RADIUS; ++j) {
      int p = i + j;
      if (p >= 0 && p < n)
        acc += w[j + STENCIL_RADIUS] * x[p];
    }
    out[i] = acc;
  }
}

void launch_stencil1d(const float *x, const float *w, float *out, int n) {
  const int block = 256;
  stencil1d<<<(n + block - 1) / block, block>>>(x, w, out, n);
}
