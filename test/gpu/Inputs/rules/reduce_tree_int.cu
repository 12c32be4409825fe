// An integer tree reduction over a constexpr block, written as
// 'sdata[tid] = sdata[tid] + sdata[tid + s]' with 's /= 2'.
constexpr int kTreeBlock = 128;
__global__ void reduce_tree_int(const int *in, int *out, int n) {
  __shared__ int sdata[kTreeBlock];
  int tid = threadIdx.x;
  int i = blockIdx.x * kTreeBlock + tid;
  sdata[tid] = i < n ? in[i] : 0;
  __syncthreads();
  for (int s = kTreeBlock / 2; s > 0; s /= 2) {
    if (tid < s)
      sdata[tid] = sdata[tid] + sdata[tid + s];
    __syncthreads();
  }
  if (tid == 0)
    out[blockIdx.x] = sdata[0];
}
