// A program around a tiled kernel: the tile is a macro, the block a literal
// at the launch, the inner loop's unroll count a pragma; and a second
// kernel whose launch the write-back cannot reach (its block is computed
// at run time).
#include <cstdio>
#include <cuda_runtime.h>

#define TILE 4

__global__ void scale(float *x, float s, int n) {
  int base = (blockIdx.x * blockDim.x + threadIdx.x) * TILE;
#pragma unroll 2
  for (int k = 0; k < TILE; ++k)
    if (base + k < n)
      x[base + k] *= s;
}

__global__ void shift(float *x, float s, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    x[i] += s;
}

int main(int argc, char **argv) {
  const int n = 1 << 20;
  float *x;
  cudaMalloc(&x, n * sizeof(float));
  cudaMemset(x, 0, n * sizeof(float));
  scale<<<(n + 128 * TILE - 1) / (128 * TILE), 128>>>(x, 2.0f, n);
  int threads = argc > 1 ? 64 : 32;
  shift<<<(n + threads - 1) / threads, threads>>>(x, 1.0f, n);
  float h = 0;
  cudaMemcpy(&h, x, sizeof(float), cudaMemcpyDeviceToHost);
  std::printf("%f\n", h);
  return 0;
}
