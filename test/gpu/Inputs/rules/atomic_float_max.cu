// The suite's reduce_max: a float maximum through two integer atomics in a
// device function, one call per thread after a grid-stride loop.
__device__ void atomic_max_float(float *addr, float v) {
  if (__float_as_int(v) >= 0)
    atomicMax((int *)addr, __float_as_int(v));
  else
    atomicMin((unsigned *)addr, __float_as_uint(v));
}

__global__ void atomic_float_max(const float *x, float *out, int n) {
  float acc = -3.0e38f;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    acc = fmaxf(acc, x[i]);
  atomic_max_float(out, acc);
}
