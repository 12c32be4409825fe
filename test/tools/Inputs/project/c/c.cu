// Calls the shared helper from divergent code: only 8 lanes arrive, so a
// full mask in the helper would be undefined here.
#include <cuda_runtime.h>
#include "../common/warp.cuh"

__global__ void maxC(float *x) {
  if (threadIdx.x < 8)
    x[threadIdx.x] = warpMax(x[threadIdx.x]);
}

int main() {
  maxC<<<1, 32>>>(nullptr);
  return 0;
}
