// BLOCK_SIZE, which B is defined as, also sizes another kernel's launch,
// and I is printed by the host: the tuned launch gets constants of its own.
#include <cstdio>
#include "sum-kernel.h"
#define BLOCK_SIZE 256

__global__ void scale(float *x, float s, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    x[i] *= s;
}

constexpr int B = BLOCK_SIZE;
constexpr int ITEMS_DEFAULT = 4;
constexpr int I = ITEMS_DEFAULT;

void launch(float *in, float *out, int n) {
  scale<<<(n + BLOCK_SIZE - 1) / BLOCK_SIZE, BLOCK_SIZE>>>(in, 0.5f, n);
  hk::blockSum<B, I><<<(n + B * I - 1) / (B * I), B>>>(in, out, n);
  std::printf("%d items per thread\n", I);
}
