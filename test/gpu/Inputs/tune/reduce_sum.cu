// A templated reduction for tuning: each thread sums Items elements (grid
// stride inside the block's tile), the block reduces in shared memory, and
// one atomicAdd per block adds the partial sum to *out.
template <int Block, int Items>
__global__ void reduce_sum(const float *x, float *out, int n) {
  __shared__ float partial[Block];
  int base = blockIdx.x * Block * Items + threadIdx.x;
  float v = 0.0f;
#pragma unroll
  for (int k = 0; k < Items; ++k) {
    int i = base + k * Block;
    if (i < n)
      v += x[i];
  }
  partial[threadIdx.x] = v;
  __syncthreads();
  for (int s = Block / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      partial[threadIdx.x] += partial[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    atomicAdd(out, partial[0]);
}

constexpr int BLOCK = 256;
constexpr int ITEMS = 1;

void launch(const float *x, float *out, int n) {
  reduce_sum<BLOCK, ITEMS><<<(n + BLOCK * ITEMS - 1) / (BLOCK * ITEMS), BLOCK>>>(x, out, n);
}
