// A functor's operator() reads the texture and a kernel template takes the
// functor as a type (SHOC's texReader): its parameters are not changed, the
// object goes into a __constant__ variable the bind writes, and the result
// builds with nvcc.
// REQUIRES: cuda
// RUN: forge-port port --checks=texture-references --to sm_90 --no-validate %s -o %t.cu 2>&1 | FileCheck %s
// RUN: %nvcc -arch=sm_90 -c %t.cu -o %t.o
#include <cuda_runtime.h>

texture<float, 1, cudaReadModeElementType> weights;

struct Reader {
  __device__ float operator()(int i) const { return tex1Dfetch(weights, i); }
};

template <class R> __global__ void apply(float *o) {
  R read;
  o[threadIdx.x] *= read(threadIdx.x);
}

void run(const float *w, float *o) {
  cudaBindTexture(0, weights, w, 64 * sizeof(float));
  apply<Reader><<<1, 64>>>(o);
  cudaUnbindTexture(weights);
}
// CHECK: error: texture reference 'weights'
// CHECK: note: 'operator()' is a member function or variadic; its parameters are not changed: the object goes into __constant__ 'weights_dev'
// CHECK: 1 error(s), 0 warning(s) for sm_90; 1 fixed
