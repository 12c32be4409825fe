// segment-reduction: reduce3 (sequential addressing, the first add during
// the load: two elements per thread), a float sum.
__global__ void seg_first_add(const float *g_idata, float *g_odata, unsigned int n) {
  extern __shared__ float sdata[];
  unsigned int tid = threadIdx.x;
  unsigned int i = blockIdx.x * (blockDim.x * 2) + threadIdx.x;
  sdata[tid] = (i < n) ? g_idata[i] : 0;
  if (i + blockDim.x < n)
    sdata[tid] += g_idata[i + blockDim.x];
  __syncthreads();
  for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s)
      sdata[tid] += sdata[tid + s];
    __syncthreads();
  }
  if (tid == 0)
    g_odata[blockIdx.x] = sdata[0];
}
