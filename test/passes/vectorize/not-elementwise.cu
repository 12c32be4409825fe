// REQUIRES: cuda
// Preconditions that fail, each with its reason; exit 1 and nothing on stdout.
// RUN: not forge-port propose %s --kernel stencil --rules=vectorize 2>&1 | FileCheck %s --check-prefix=STENCIL
// RUN: not forge-port propose %s --kernel mixed --rules=vectorize 2>&1 | FileCheck %s --check-prefix=MIXED
// RUN: not forge-port propose %s --kernel halves --rules=vectorize 2>&1 | FileCheck %s --check-prefix=HALVES
// RUN: not forge-port propose %s --kernel strided --rules=vectorize 2>&1 | FileCheck %s --check-prefix=STRIDED
// RUN: not forge-port propose %s --kernel stencil --rules=vectorize 2>/dev/null | count 0

#include <cuda_fp16.h>

__global__ void stencil(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = in[i - 1] + in[i + 1];
}
// STENCIL: forge-port: note: vectorize: not applicable: not an elementwise kernel: 'in[i - 1]' is not indexed by 'i' alone

__global__ void mixed(const float *in, double *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = in[i];
}
// MIXED: forge-port: note: vectorize: not applicable: the arrays mix 4- and 8-byte elements

__global__ void halves(const __half *in, __half *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = in[i];
}
// HALVES: forge-port: note: vectorize: not applicable: not an elementwise kernel: 'out' has elements of type '__half'; only arithmetic elements are followed

__global__ void strided(const float *in, float *out, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    out[i] = in[i];
}
// STRIDED: forge-port: note: vectorize: not applicable: the kernel already loops over a grid stride
