// Benchmark op: axpy (first-round kernel).
// y[i] = a * x[i] + y[i] for n floats, in place, one thread per element.
// Compared with cublasSaxpy.
__global__ void axpy(int n, float a, const float *x, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = a * x[i] + y[i];
}

void launch_axpy(int n, float a, const float *x, float *y) {
  const int block = 256;
  axpy<<<(n + block - 1) / block, block>>>(n, a, x, y);
}
