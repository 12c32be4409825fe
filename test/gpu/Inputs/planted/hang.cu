// Planted: never ends (the volatile read keeps the loop).
__global__ void stencil3(const float *x, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  volatile const float *v = x;
  while (v[i] < 1e30f) {
  }
  out[i] = v[i];
}
