// Benchmark op: scale (first-round kernel).
// y[i] = a * x[i] for n floats, one thread per element.
__global__ void scale(float a, const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = a * x[i];
}

void launch_scale(float a, const float *x, float *y, int n) {
  const int block = 256;
  scale<<<(n + block - 1) / block, block>>>(a, x, y, n);
}
