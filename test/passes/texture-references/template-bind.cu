// A bind in a function template whose pointer argument makes the call
// dependent (SHOC's Spmv runTest<floatType>): the removed overload it will
// resolve to is the one that takes the texture as written, so the bind is
// rewritten in the template's text. The result builds with nvcc.
// REQUIRES: cuda
// RUN: forge-port port --checks=texture-references --to sm_90 --no-validate %s -o %t.cu 2>&1 | FileCheck %s
// RUN: FileCheck %s --check-prefix=FIX --input-file=%t.cu
// RUN: %nvcc -arch=sm_90 -c %t.cu -o %t.o
#include <cuda_runtime.h>

texture<float, 1> vec;

__global__ void gather(float *o, const int *idx) { o[threadIdx.x] = tex1Dfetch(vec, idx[threadIdx.x]); }

template <class T> void run(T *d, float *o, const int *idx, int n) {
  cudaChannelFormatDesc desc = cudaCreateChannelDesc<float>();
  cudaBindTexture(0, vec, d, desc, n * sizeof(T));
  // FIX: forgeBindTexture(&vec, d, desc, n * sizeof(T), forgeTextureDesc(cudaReadModeElementType));
  gather<<<1, 32>>>(o, idx);
  cudaUnbindTexture(vec);
}
template void run<float>(float *, float *, const int *, int);
// CHECK: error: texture reference 'vec'
// CHECK: 1 error(s), 0 warning(s) for sm_90; 1 fixed
