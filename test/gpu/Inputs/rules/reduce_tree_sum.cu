// A naive shared-memory tree reduction: every block sums its threads'
// values (a grid-stride loop first) into one partial sum per block.
__global__ void reduce_tree_sum(const float *in, float *partial, int n) {
  __shared__ float sdata[1024];
  unsigned tid = threadIdx.x;
  float v = 0.0f;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    v += in[i];
  sdata[tid] = v;
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s)
      sdata[tid] += sdata[tid + s];
    __syncthreads();
  }
  if (tid == 0)
    partial[blockIdx.x] = sdata[0];
}
