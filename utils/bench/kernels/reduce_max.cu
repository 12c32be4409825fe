// Benchmark op: max reduction (first-round kernel).
// *out = max(*out, x[0..n)). Each thread takes the max of its elements in a
// grid-stride loop (the spec's grid gives every thread about 256 of them),
// then combines it into *out with one integer atomic on the float's bits.
// *out must hold -FLT_MAX before the launch (the spec's init). The result is
// exact and independent of the order, so the tolerance is exact. Inputs may
// be negative; NaN inputs are not supported.
// Spec size: N = 2^24 (16M floats); the second size is 2^26 (64M).
#include <cfloat>

// Float max as integer atomics: non-negative floats order like their
// bits as signed ints, negative floats order in reverse of their bits as
// unsigned ints.
__device__ void atomic_max_float(float *addr, float v) {
  if (__float_as_int(v) >= 0)
    atomicMax((int *)addr, __float_as_int(v));
  else
    atomicMin((unsigned *)addr, __float_as_uint(v));
}

__global__ void reduce_max(const float *x, float *out, int n) {
  float acc = -FLT_MAX;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += gridDim.x * blockDim.x)
    acc = fmaxf(acc, x[i]);
  atomic_max_float(out, acc);
}

void launch_reduce_max(const float *x, float *out, int n) {
  const int block = 256, items = 256;
  int grid = (n + block * items - 1) / (block * items);
  reduce_max<<<grid, block>>>(x, out, n);
}
