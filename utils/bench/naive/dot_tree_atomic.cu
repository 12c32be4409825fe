// The most common hand-written dot product: each thread's product into a
// shared array, a halving tree per block, and thread 0 adds the block's
// result with one atomicAdd.
__global__ void dot(const float *a, const float *b, float *result, int n) {
  __shared__ float cache[256];
  int tid = threadIdx.x;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  cache[tid] = i < n ? a[i] * b[i] : 0.0f;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s) cache[tid] += cache[tid + s];
    __syncthreads();
  }
  if (tid == 0) atomicAdd(result, cache[0]);
}
