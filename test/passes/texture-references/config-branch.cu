// A texture also named in a branch this configuration leaves out (#ifdef on
// a project option, Rodinia's kmeans): the code that is compiled is
// rewritten, and a note says that the left-out branch still names the
// texture reference. The result builds with nvcc.
// REQUIRES: cuda
// RUN: forge-port port --checks=texture-references --to sm_90 --no-validate %s -o %t.cu 2>&1 | FileCheck %s
// RUN: %nvcc -arch=sm_90 -c %t.cu -o %t.o
#include <cuda_runtime.h>

texture<float, 1, cudaReadModeElementType> feats;

__global__ void sum(float *o, int n) {
  float a = 0;
  for (int i = 0; i < n; ++i)
    a += tex1Dfetch(feats, i);
#ifdef EXTRA_REDUCTION
  a += tex1Dfetch(feats, n);
  // CHECK: [[@LINE-1]]:19: note: not rewritten here: this code is not compiled in this configuration (an #if branch it leaves out); with it, 'feats' would still be named as a texture reference
#endif
  o[threadIdx.x] = a;
}

void run(const float *f, float *o, int n) {
  cudaBindTexture(0, feats, f, n * sizeof(float));
  sum<<<1, 32>>>(o, n);
}
// CHECK: 1 error(s), 0 warning(s) for sm_90; 1 fixed
