// A texture named in a branch the host side of the parse skips (#if
// __CUDA_ARCH__ < 300 is true there, since __CUDA_ARCH__ is undefined):
// rewriting the uses the parse sees would leave that one naming a texture
// reference, so nothing is rewritten, and the note says where (SHOC's MD).
// REQUIRES: cuda
// RUN: not forge-port port --checks=texture-references --to sm_90 --no-validate %s -o %t.cu 2>&1 | FileCheck %s
// RUN: diff %s %t.cu
#include <cuda_runtime.h>

texture<int4, 1, cudaReadModeElementType> halves;
// CHECK: [[@LINE-1]]:43: error: texture reference 'halves': texture references were removed in CUDA 12

__device__ int4 get(int i) {
#if __CUDA_ARCH__ < 300
  return make_int4(0, 0, 0, 0);
#else
  return tex1Dfetch(halves, i);
  // CHECK: [[@LINE-1]]:21: note: not rewritten: 'halves' is named here in a branch of an #if on __CUDA_ARCH__ that the host side of the parse skips and the device side compiles
#endif
}

__global__ void k(int4 *o) { o[threadIdx.x] = get(threadIdx.x); }

void run(int4 *d, int4 *o) {
  cudaBindTexture(0, halves, d, 64 * sizeof(int4));
  k<<<1, 64>>>(o);
}
// CHECK: 1 error(s), 0 warning(s) for sm_90; 0 fixed
