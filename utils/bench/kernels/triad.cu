// Benchmark op: STREAM triad (first-round kernel).
// a[i] = b[i] + s * c[i] for n floats, one thread per element.
__global__ void triad(float *a, const float *b, const float *c, float s, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    a[i] = b[i] + s * c[i];
}

void launch_triad(float *a, const float *b, const float *c, float s, int n) {
  const int block = 256;
  triad<<<(n + block - 1) / block, block>>>(a, b, c, s, n);
}
