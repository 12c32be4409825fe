#include <cstdio>
#include <cuda_runtime.h>
#include "../common/warp.cuh"

__global__ void maxA(float *x) { x[threadIdx.x] = warpMax(x[threadIdx.x]); }

int main() {
  float *d = nullptr;
  cudaMalloc(&d, 64 * sizeof(float));
  maxA<<<2, 32>>>(d);
  cudaThreadSynchronize();
  cudaFree(d);
  return 0;
}
