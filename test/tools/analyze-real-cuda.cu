// `forge-port analyze` on the real CUDA 13 headers, where threadIdx.x is a
// property of a builtin struct and min/max, atomicAdd and __ldg come from the
// toolkit.
// REQUIRES: cuda
// RUN: cd %S && forge-port analyze analyze-real-cuda.cu --cuda-path %cuda_path | FileCheck %s

#include <cuda_runtime.h>

__global__ void smooth(const float *__restrict__ in, float *out, float *total, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float s = 0.f;
  for (int k = -2; k <= 2; ++k)
    s += __ldg(&in[min(max(i + k, 0), n - 1)]);
  out[i] = s;
  atomicAdd(total, s);
}
// CHECK:      analyze-real-cuda.cu:9: kernel 'smooth'
// CHECK:        analyze-real-cuda.cu:14: load __ldg(&in[min(max(i + k, 0), n - 1)]) (float): coalesced (assuming inside the clamp range); footprint 5 (radius 2), reuse 5, clamped border; guarded by i < n
// CHECK-NEXT:   analyze-real-cuda.cu:15: store out[i] (float): coalesced; guarded by i < n
// CHECK-NEXT:   analyze-real-cuda.cu:16: atomic add atomicAdd(total, s) (float): broadcast; guarded by i < n
// CHECK:        analyze-real-cuda.cu:14-15: stencil on 'in': 1D, 5 footprint (radius 2), reuse 5, clamped border; output out[i]
// CHECK:        analyze-real-cuda.cu:16: atomic reduction (+) into total[0]: one address for the whole grid
