// A memory-bound elementwise kernel, a[i] = b[i] + s * c[i], each thread
// handling ITEMS elements a block apart. triad.json beside it is its launch
// spec, so the build takes BLOCK and ITEMS from the tuning database.
#include <cuda_runtime.h>

template <int Items>
__global__ void triad(float *a, const float *b, const float *c, float s, int n) {
  int base = blockIdx.x * blockDim.x * Items + threadIdx.x;
#pragma unroll
  for (int k = 0; k < Items; ++k) {
    int i = base + k * blockDim.x;
    if (i < n)
      a[i] = b[i] + s * c[i];
  }
}

constexpr int BLOCK = 256;
constexpr int ITEMS = 1;

void triadLaunch(float *a, const float *b, const float *c, int n) {
  triad<ITEMS><<<(n + BLOCK * ITEMS - 1) / (BLOCK * ITEMS), BLOCK>>>(a, b, c, 3.0f, n);
}
