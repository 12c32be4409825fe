// A partial sum per block with the tutorial's fourth kernel: sequential
// addressing, and the first add done while loading (two elements per
// thread, each guarded), a static shared array of the block's size.
__global__ void block_sums_seq(const float *in, float *partial, unsigned int n) {
  __shared__ float sdata[256];
  unsigned int tid = threadIdx.x;
  unsigned int i = blockIdx.x * (blockDim.x * 2) + threadIdx.x;
  float x = (i < n) ? in[i] : 0.0f;
  if (i + blockDim.x < n)
    x += in[i + blockDim.x];
  sdata[tid] = x;
  __syncthreads();
  for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s)
      sdata[tid] += sdata[tid + s];
    __syncthreads();
  }
  if (tid == 0)
    partial[blockIdx.x] = sdata[0];
}
