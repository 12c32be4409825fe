// Planted: the left edge clamps to 1 instead of 0, so element 0 averages
// x[1] twice. One wrong element among millions, all reads in bounds.
__global__ void stencil3(const float *x, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  float l = x[i > 0 ? i - 1 : 1];
  float r = x[i < n - 1 ? i + 1 : n - 1];
  out[i] = (l + x[i] + r) * (1.0f / 3.0f);
}
