// Dot product, grid-strided, written as for (;;) with a break.
__global__ void dot_forever(const float *a, const float *b, float *result, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  for (;;) {
    if (i >= n) break;
    atomicAdd(result, a[i] * b[i]);
    i += blockDim.x * gridDim.x;
  }
}
void run_dot_forever(const float *a, const float *b, float *r, int n) {
  dot_forever<<<264, 256>>>(a, b, r, n);
}
