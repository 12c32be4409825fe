// An integer maximum with an early return.
__global__ void atomic_max_int(const int *x, int *res, int n) {
  int tid = threadIdx.x + blockIdx.x * blockDim.x;
  if (tid >= n) return;
  atomicMax(&res[0], x[tid]);
}
