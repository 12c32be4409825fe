// Dot product: every thread multiplies one pair and adds it to the result
// with its own atomicAdd.
__global__ void dot_atomic(const float *__restrict__ a, const float *__restrict__ b,
                           float *result, unsigned n) {
  unsigned i = blockDim.x * blockIdx.x + threadIdx.x;
  if (i < n) {
    float p = a[i] * b[i];
    atomicAdd(result, p);
  }
}
