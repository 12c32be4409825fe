// Benchmark input: one CUB BlockReduce kernel and a host launch; parses
// without errors under plain Clang 22 with CUDA 13's headers.
#include <cub/cub.cuh>

template <int BLOCK>
__global__ void blockSum(const float *__restrict__ in, float *out, int n) {
  using BlockReduce = cub::BlockReduce<float, BLOCK>;
  __shared__ typename BlockReduce::TempStorage temp;
  int i = blockIdx.x * BLOCK + threadIdx.x;
  float v = i < n ? in[i] : 0.0f;
  float s = BlockReduce(temp).Sum(v);
  if (threadIdx.x == 0)
    atomicAdd(out, s);
}

void launch(const float *in, float *out, int n) {
  blockSum<256><<<(n + 255) / 256, 256>>>(in, out, n);
}
