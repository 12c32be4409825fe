// "CUDA by Example"'s dot product, as the book writes it: a grid-stride
// while loop, then a tree over a while loop whose stride is declared
// before it and halved at the end of its body, one partial per block.
#define THREADS_PER_BLOCK 256
__global__ void reduce_tree_while(const float *a, const float *b, float *c, int n) {
  __shared__ float cache[THREADS_PER_BLOCK];
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
    c[blockIdx.x] = cache[0];
}
