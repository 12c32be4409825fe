__device__ float warpSum(float v) {
  for (int offset = 16; offset > 0; offset /= 2)
    v += __shfl_down(v, offset);
  return v;
}
__global__ void k(float *x) { x[threadIdx.x] = warpSum(x[threadIdx.x]); }
