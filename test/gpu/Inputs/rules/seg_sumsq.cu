// segment-reduction: reduce1's strided index over a static array of
// doubles, the squares of the elements summed.
__global__ void seg_sumsq(const double *x, double *partial, long n) {
  __shared__ double cache[1024];
  unsigned tid = threadIdx.x;
  long i = (long)blockIdx.x * blockDim.x + tid;
  double v = 0.0;
  if (i < n)
    v = x[i] * x[i];
  cache[tid] = v;
  __syncthreads();
  for (unsigned s = 1; s < blockDim.x; s <<= 1) {
    int index = 2 * s * tid;
    if (index < blockDim.x)
      cache[index] = cache[index] + cache[index + s];
    __syncthreads();
  }
  if (tid == 0)
    partial[blockIdx.x] = cache[0];
}
