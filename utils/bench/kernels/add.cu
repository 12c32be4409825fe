// Benchmark op: add (first-round kernel).
// z[i] = x[i] + y[i] for n floats, one thread per element.
__global__ void add(const float *x, const float *y, float *z, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    z[i] = x[i] + y[i];
}

void launch_add(const float *x, const float *y, float *z, int n) {
  const int block = 256;
  add<<<(n + block - 1) / block, block>>>(x, y, z, n);
}
