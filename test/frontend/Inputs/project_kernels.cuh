// A project header with a kernel and a device helper.
#pragma once

__device__ inline float twice(float v) { return 2.0f * v; }

template <int BLOCK>
__global__ void headerKernel(float *out) {
  out[blockIdx.x * BLOCK + threadIdx.x] = twice(out[threadIdx.x]);
}
