// Interleaved-addressing tree reductions (the first kernels of the classic
// reduction tutorials): the stride doubles from 1 and the threads at
// multiples of 2 * s combine; extern shared memory, one element per thread.
__global__ void reduce_interleaved(const float *g_idata, float *g_odata, unsigned int n) {
  extern __shared__ float sdata[];
  unsigned int tid = threadIdx.x;
  unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
  sdata[tid] = (i < n) ? g_idata[i] : 0;
  __syncthreads();
  for (unsigned int s = 1; s < blockDim.x; s *= 2) {
    if (tid % (2 * s) == 0)
      sdata[tid] += sdata[tid + s];
    __syncthreads();
  }
  if (tid == 0)
    g_odata[blockIdx.x] = sdata[0];
}

// The same with a mask test and an integer max over a fixed block.
__global__ void reduce_interleaved_max(const int *in, int *out, int n) {
  __shared__ int sm[512];
  int t = threadIdx.x;
  int i = blockIdx.x * 512 + t;
  sm[t] = i < n ? in[i] : -2147483647 - 1;
  __syncthreads();
  for (int s = 1; s < 512; s <<= 1) {
    if ((t & (2 * s - 1)) == 0)
      sm[t] = max(sm[t], sm[t + s]);
    __syncthreads();
  }
  if (t == 0)
    out[blockIdx.x] = sm[0];
}
