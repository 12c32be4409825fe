// Included by main.cu, not compiled on its own (the CUDA 4-era layout).
__global__ void maxB(float *x) {
  float v = warpMax(x[threadIdx.x]);
  x[threadIdx.x] = v + __shfl_xor(v, 1);
}
