// A block-wide max that every thread uses afterwards (a softmax-style
// shift): the tree's result must stay visible to the whole block.
template <int BLOCK>
__global__ void reduce_tree_max(const float *in, float *out, int n) {
  __shared__ float sm[BLOCK];
  int i = blockIdx.x * BLOCK + threadIdx.x;
  sm[threadIdx.x] = i < n ? in[i] : -3.0e38f;
  __syncthreads();
  for (int s = BLOCK / 2; s > 0; s /= 2) {
    if (threadIdx.x < s)
      sm[threadIdx.x] = fmaxf(sm[threadIdx.x], sm[threadIdx.x + s]);
    __syncthreads();
  }
  if (i < n)
    out[i] = in[i] - sm[0];
}
template __global__ void reduce_tree_max<256>(const float *, float *, int);
