// A second kernel for the campaign test: BLOCK and ITEMS are launch and template
// parameters, so one harness compile covers every configuration.

template <int Items>
__global__ void shift(const float *x, float *y, int n) {
  int base = (blockIdx.x * blockDim.x + threadIdx.x) * Items;
  for (int k = 0; k < Items; ++k)
    if (base + k < n)
      y[base + k] = x[base + k] + 1.0f;
}

constexpr int BLOCK = 256;
constexpr int ITEMS = 1;

void launch(const float *x, float *y, int n) {
  shift<ITEMS><<<(n + BLOCK * ITEMS - 1) / (BLOCK * ITEMS), BLOCK>>>(x, y, n);
}
