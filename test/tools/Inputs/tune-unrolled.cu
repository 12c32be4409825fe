// A kernel whose unroll count is a tunable the harness cannot set.

template <int Items>
__global__ void scale(const float *x, float *y, int n) {
  int base = (blockIdx.x * blockDim.x + threadIdx.x) * Items;
#pragma unroll 2
  for (int k = 0; k < Items; ++k)
    if (base + k < n)
      y[base + k] = 2.0f * x[base + k];
}

constexpr int BLOCK = 256;
constexpr int ITEMS = 1;

void launch(const float *x, float *y, int n) {
  scale<ITEMS><<<(n + BLOCK * ITEMS - 1) / (BLOCK * ITEMS), BLOCK>>>(x, y, n);
}
