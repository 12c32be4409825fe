// Count of elements above a threshold: one atomicAdd per qualifying thread.
__global__ void count_above(const float *data, int n, float threshold, unsigned int *count) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && data[i] > threshold)
    atomicAdd(count, 1u);
}
