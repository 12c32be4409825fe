// "CUDA by Example": a grid-stride while loop, a shared tree, one atomicAdd
// per block; written for a launch of 32 blocks.
// "CUDA by Example": a while loop over tid, a shared-memory tree, one
// atomicAdd per block; launched with 32 blocks.
#define THREADS 256
__global__ void dot_book(const float *a, const float *b, float *c, int n) {
  __shared__ float cache[THREADS];
  int tid = threadIdx.x + blockIdx.x * blockDim.x;
  int cacheIndex = threadIdx.x;
  float temp = 0;
  while (tid < n) {
    temp += a[tid] * b[tid];
    tid += blockDim.x * gridDim.x;
  }
  cache[cacheIndex] = temp;
  __syncthreads();
  int i = blockDim.x / 2;
  while (i != 0) {
    if (cacheIndex < i)
      cache[cacheIndex] += cache[cacheIndex + i];
    __syncthreads();
    i /= 2;
  }
  if (cacheIndex == 0)
    atomicAdd(c, cache[0]);
}
