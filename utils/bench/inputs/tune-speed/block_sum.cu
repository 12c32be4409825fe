// Benchmark input of utils/bench/tune-speed.sh (issue 16): a CUB block
// reduction, hk::blockSum<BLOCK, ITEMS>, launched as a user writes it, with
// the geometry derived from two local constants. block_sum.json sweeps the
// 20 configurations Kernel Tuner was given (docs/bench/tune-speed.md).
#include <cub/block/block_reduce.cuh>

namespace hk {
template <int BLOCK, int ITEMS>
__global__ void blockSum(const float *__restrict__ in, float *out, int n) {
  using BlockReduce = cub::BlockReduce<float, BLOCK>;
  __shared__ typename BlockReduce::TempStorage temp;
  int base = blockIdx.x * BLOCK * ITEMS + threadIdx.x;
  float v = 0.0f;
#pragma unroll
  for (int k = 0; k < ITEMS; ++k) {
    int i = base + k * BLOCK;
    if (i < n)
      v += in[i];
  }
  float s = BlockReduce(temp).Sum(v);
  if (threadIdx.x == 0)
    atomicAdd(out, s);
}
} // namespace hk

void launch(const float *in, float *out, int n) {
  constexpr int B = 256, I = 4;
  hk::blockSum<B, I><<<(n + B * I - 1) / (B * I), B>>>(in, out, n);
}
