// A block sum launched with its geometry in two local constants (the shape
// of utils/bench/inputs/tune-speed/block_sum.cu, without CUB, so that nvcc
// compiles it fast).
namespace hk {
template <int BLOCK, int ITEMS>
__global__ void blockSum(const float *__restrict__ in, float *out, int n) {
  __shared__ float partial[BLOCK];
  int base = blockIdx.x * BLOCK * ITEMS + threadIdx.x;
  float v = 0.0f;
#pragma unroll
  for (int k = 0; k < ITEMS; ++k) {
    int i = base + k * BLOCK;
    if (i < n)
      v += in[i];
  }
  partial[threadIdx.x] = v;
  __syncthreads();
  for (int s = BLOCK / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      partial[threadIdx.x] += partial[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    atomicAdd(out, partial[0]);
}
} // namespace hk

void launch(const float *in, float *out, int n) {
  constexpr int B = 256, I = 4;
  hk::blockSum<B, I><<<(n + B * I - 1) / (B * I), B>>>(in, out, n);
}
