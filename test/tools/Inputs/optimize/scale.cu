// A kernel for the optimize tests: y = a * x.
#include <cuda_runtime.h>
#include <cstdio>

__global__ void scale(const float *x, float *y, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i];
}

int main() {
  const int n = 1 << 20;
  float *x, *y;
  cudaMalloc(&x, n * sizeof(float));
  cudaMalloc(&y, n * sizeof(float));
  scale<<<(n + 255) / 256, 256>>>(x, y, 2.0f, n);
  cudaDeviceSynchronize();
  printf("done\n");
  return 0;
}
