// Benchmark op: copy (first-round kernel).
// y[i] = x[i] for n floats, one thread per element. Compared with a
// device-to-device cudaMemcpy of the same bytes.
__global__ void copy(const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = x[i];
}

void launch_copy(const float *x, float *y, int n) {
  const int block = 256;
  copy<<<(n + block - 1) / block, block>>>(x, y, n);
}
