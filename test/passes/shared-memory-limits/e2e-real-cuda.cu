// End to end against the real CUDA 13 headers: the ported file compiles with
// nvcc for sm_90.
// REQUIRES: cuda
// RUN: forge-port port --checks=shared-memory-limits --to sm_90 %s -o %t.cu 2>&1 | FileCheck %s
// RUN: %nvcc -arch=sm_90 -c %t.cu -o %t.o

#include <cuda_runtime.h>

__global__ void stencil(float *out) {
  extern __shared__ float tile[];
  tile[threadIdx.x] = out[threadIdx.x];
  __syncthreads();
  out[threadIdx.x] = tile[(threadIdx.x + 1) % blockDim.x];
}

void run(float *out) {
  stencil<<<64, 256, 100 * 1024>>>(out);
  // CHECK: [[@LINE-1]]:3: warning: launch of 'stencil' requests 102400 bytes of dynamic shared memory{{.*}}[shared-memory-limits]
}
