// The minimum and the maximum, one element and two atomics per thread,
// into two pointers.
__global__ void atomic_minmax(const int *v, int n, int *lo, int *hi) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) { atomicMin(lo, v[i]); atomicMax(hi, v[i]); }
}
