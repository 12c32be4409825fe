// A count of positive elements and an or of their bits, in two kernels.
__global__ void atomic_count(const float *x, unsigned *count, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && x[i] > 0.0f)
    atomicAdd(count, 1);
}
