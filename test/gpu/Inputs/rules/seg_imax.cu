// segment-reduction: an int maximum written as a select, INT_MIN from the
// guard's else branch, two elements per thread.
__global__ void seg_imax(const int *in, int *out, int n) {
  extern __shared__ int sm[];
  int tid = threadIdx.x;
  int i = blockIdx.x * (blockDim.x * 2) + tid;
  int a = i < n ? in[i] : -2147483647 - 1;
  int b = i + (int)blockDim.x < n ? in[i + blockDim.x] : -2147483647 - 1;
  sm[tid] = a > b ? a : b;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s /= 2) {
    if (tid < s)
      sm[tid] = sm[tid + s] > sm[tid] ? sm[tid + s] : sm[tid];
    __syncthreads();
  }
  if (tid == 0)
    out[blockIdx.x] = sm[0];
}
