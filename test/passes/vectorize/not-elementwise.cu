// REQUIRES: cuda
// Preconditions that fail, each with its reason; exit 1 and nothing on stdout.
// RUN: not forge-port propose %s --kernel stencil --rules=vectorize 2>&1 | FileCheck %s --check-prefix=STENCIL
// RUN: not forge-port propose %s --kernel shifted --rules=vectorize 2>&1 | FileCheck %s --check-prefix=SHIFTED
// RUN: not forge-port propose %s --kernel generic --rules=vectorize 2>&1 | FileCheck %s --check-prefix=GENERIC
// RUN: not forge-port propose %s --kernel lane_value --rules=vectorize 2>&1 | FileCheck %s --check-prefix=LANE
// RUN: not forge-port propose %s --kernel exit_then_sync --rules=vectorize 2>&1 | FileCheck %s --check-prefix=SYNC
// RUN: not forge-port propose %s --kernel through_param --rules=vectorize 2>&1 | FileCheck %s --check-prefix=PARAM
// RUN: not forge-port propose %s --kernel stencil --rules=vectorize 2>/dev/null | count 0
// RUN: not forge-port propose %s --kernel side_written --rules=vectorize,grid-stride 2>&1 | FileCheck %s --check-prefix=SIDE

#include <cuda_fp16.h>

__global__ void stencil(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = in[i - 1] + in[i + 1];
}
// STENCIL: forge-port: note: vectorize: not applicable: not an elementwise kernel: 'in[i - 1]' (line [[@LINE-2]]) is at 'i - 1', not at the index 'i' of the store 'out[i]' (line [[@LINE-2]]) (a neighbour: a stencil's read)

// Every access at i + off: the vectors would not start at a multiple of 4.
__global__ void shifted(const float *in, float *out, int n, int off) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i + off] = 2.f * in[i + off];
}
// SHIFTED: forge-port: note: vectorize: not applicable: the accesses are at 'blockIdx.x * blockDim.x + threadIdx.x + off', an offset from the index 'i': their vectors would not line up with the index's

template <typename T>
__global__ void generic(const T *in, T *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i];
}
template __global__ void generic<float>(const float *, float *, int);
// GENERIC: forge-port: note: vectorize: not applicable: the element type of '{{in|out}}' is a template parameter

__global__ void lane_value(const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int lane = threadIdx.x & 31;
  if (i < n) y[i] = x[i] + lane;
}
// LANE: forge-port: note: vectorize: not applicable: the stored value uses 'lane' (line [[@LINE-2]]), which differs between threads

__global__ void exit_then_sync(float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  y[i] *= 2.f;
  __syncthreads();
}
// SYNC: forge-port: note: vectorize: not applicable: the body calls '__syncthreads' (line [[@LINE-2]])

__device__ void store(float *p, float v) { *p = v; }
__global__ void through_param(const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) store(&y[i], x[i]);
}
// A store through a store helper is the model's store y[i]; vectorize does
// not re-spell a call as a vector store.
// PARAM: forge-port: note: vectorize: not applicable: 'store(&y[i], x[i])' (line [[@LINE-4]]) is not an element p[i] of a kernel pointer parameter

// A read at an index of its own from the buffer the map writes: the
// element's value would depend on another element's store.
__global__ void side_written(const float *x, float *y, int n, int g) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = x[i] + y[i / g];
}
// SIDE: vectorize: not applicable: not an elementwise kernel: 'y[i / g]' (line [[@LINE-2]]) is at 'i / g', not at the index 'i' of the store 'y[i]' (line [[@LINE-2]]) (a read at an index of its own is kept per element only from a buffer the map does not write or read at the index)
// SIDE: grid-stride: not applicable: not an elementwise kernel
