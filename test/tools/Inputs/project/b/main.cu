#include <cuda_runtime.h>
#include "../common/warp.cuh"
#include "kernel.cu"

int main() {
  float *d = nullptr;
  cudaMalloc(&d, 128 * sizeof(float));
  maxB<<<1, 128>>>(d);
  cudaThreadSynchronize();
  cudaThreadExit();
  return 0;
}
