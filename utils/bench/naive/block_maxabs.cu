// The largest magnitude of each block of 512 values (a per-block max-abs,
// as a quantiser computes its scales): fabsf on the load, a select for
// the maximum, a block size fixed by a macro.
#define THREADS 512
__global__ void block_maxabs(const float *x, float *scale, int n) {
  __shared__ float m[THREADS];
  int t = threadIdx.x;
  int g = blockIdx.x * THREADS + t;
  m[t] = g < n ? fabsf(x[g]) : 0.0f;
  __syncthreads();
  for (int s = THREADS / 2; s > 0; s /= 2) {
    if (t < s)
      m[t] = m[t] > m[t + s] ? m[t] : m[t + s];
    __syncthreads();
  }
  if (t == 0)
    scale[blockIdx.x] = m[0];
}
