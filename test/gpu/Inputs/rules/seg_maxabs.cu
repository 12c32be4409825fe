// segment-reduction: a maximum of absolute values with fmaxf over a static
// array and a constant block of 256 threads.
#define SEG_BS 256
__global__ void seg_maxabs(const float *in, float *out, int n) {
  __shared__ float smax[SEG_BS];
  int t = threadIdx.x;
  int gi = blockIdx.x * SEG_BS + t;
  smax[t] = gi < n ? fabsf(in[gi]) : 0.0f;
  __syncthreads();
  for (int s = SEG_BS / 2; s > 0; s >>= 1) {
    if (t < s)
      smax[t] = fmaxf(smax[t], smax[t + s]);
    __syncthreads();
  }
  if (t == 0)
    out[blockIdx.x] = smax[0];
}
