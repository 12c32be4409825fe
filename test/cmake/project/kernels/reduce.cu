// A CUDA 8-era block sum: the legacy warp shuffle is what forge-port fixes
// (__shfl_down_sync); the launch is a constant 256 threads.
#include "common.h"
#include <cuda_runtime.h>

__device__ float warpSum(float v) {
  for (int offset = kWarpSize / 2; offset > 0; offset /= 2)
    v += __shfl_down(v, offset);
  return v;
}

__global__ void blockSum(const float *in, float *out, int n) {
  __shared__ float partial[kReduceBlock / kWarpSize];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = warpSum(i < n ? in[i] : 0.0f);
  if ((threadIdx.x & (kWarpSize - 1)) == 0)
    partial[threadIdx.x / kWarpSize] = v;
  __syncthreads();
  if (threadIdx.x < kWarpSize) {
    v = threadIdx.x < kReduceBlock / kWarpSize ? partial[threadIdx.x] : 0.0f;
    v = warpSum(v);
    if (threadIdx.x == 0)
      atomicAdd(out, v);
  }
}

void sum(const float *in, float *out, int n) {
  blockSum<<<(n + kReduceBlock - 1) / kReduceBlock, kReduceBlock>>>(in, out, n);
}
