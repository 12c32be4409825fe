// Planted: correct output, but the last thread scribbles on the input.
__global__ void stencil3(float *x, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  float l = x[i > 0 ? i - 1 : 0];
  float r = x[i < n - 1 ? i + 1 : n - 1];
  out[i] = (l + x[i] + r) * (1.0f / 3.0f);
  if (i == n - 1)
    x[i] = 42.0f;
}
