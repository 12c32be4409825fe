// A count and a sum of the elements above a threshold, per-thread
// accumulators of a grid-stride loop, into an int and a float.
__global__ void atomic_count_sum(const float *x, int n, float t, int *count, float *total) {
  int c = 0;
  float sum = 0.0f;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    if (x[i] > t) {
      c += 1;
      sum += x[i];
    }
  atomicAdd(count, c);
  atomicAdd(total, sum);
}
