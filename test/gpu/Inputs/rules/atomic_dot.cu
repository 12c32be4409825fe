// A dot product, one element and one atomicAdd per thread.
__global__ void atomic_dot(const float *__restrict__ a, const float *__restrict__ b, float *result,
                           unsigned n) {
  unsigned i = blockDim.x * blockIdx.x + threadIdx.x;
  if (i < n) {
    float p = a[i] * b[i];
    atomicAdd(result, p);
  }
}
