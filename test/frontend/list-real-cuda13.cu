// The real CUDA 13 headers: CUB's BlockReduce inside a kernel, cooperative
// groups, host min/max (supplied by the nvcc-compatibility prelude) and a
// cache-hinted store that Clang's wrapper lacks. One parse of CUB costs
// seconds, so all of it is in this one file.
// REQUIRES: cuda
// RUN: forge-port list --arch sm_90 --format=json %s 2>&1 | FileCheck %s --implicit-check-not=error:

#include <cooperative_groups.h>
#include <cub/cub.cuh>
namespace cg = cooperative_groups;

template <int BLOCK_THREADS>
__global__ void blockSum(const float *__restrict__ in, float *out, int n) {
  using BlockReduce = cub::BlockReduce<float, BLOCK_THREADS>;
  __shared__ typename BlockReduce::TempStorage temp;
  int i = blockIdx.x * BLOCK_THREADS + threadIdx.x;
  float v = i < n ? in[i] : 0.0f;
  float s = BlockReduce(temp).Sum(v);
  if (threadIdx.x == 0)
    atomicAdd(out, s);
}

__global__ void tileMax(const float *in, float *out) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
  float v = in[block.thread_rank()];
  for (int o = 16; o > 0; o /= 2)
    v = fmaxf(v, warp.shfl_down(v, o));
  if (warp.thread_rank() == 0)
    __stcs(out + blockIdx.x, v);
}

int main() {
  float *in = nullptr, *out = nullptr;
  int n = 1 << 20;
  int blocks = min(n / 256, 4096);
  blockSum<256><<<blocks, 256>>>(in, out, n);
  tileMax<<<n / 32, 32>>>(in, out);
  return 0;
}

// CHECK:      "name": "blockSum",
// CHECK:      "features": [
// CHECK-NEXT:   "atomics",
// CHECK-NEXT:   "cub"
// CHECK:      "static_shared_bytes": {{[1-9][0-9]*}}
// CHECK:      "name": "tileMax",
// CHECK:      "features": [
// CHECK-NEXT:   "cooperative-groups"
// CHECK:      "launch_sites": [
// CHECK:        "kernel": "blockSum",
// CHECK:        "grid": {
// CHECK-NEXT:     "text": "blocks",
// CHECK-NEXT:     "value": null
// CHECK:        "kernel": "tileMax",
// CHECK:        "name": "blockSum::BLOCK_THREADS",
