// End to end with the real CUDA 13 headers and nvcc: a CUDA 8-style file
// (__shfl_down, __any, __ballot, an __CUDA_ARCH__ == 800 guard and
// prop.clockRate) does not compile with CUDA 13; after
// `forge-port --to sm_90 -o` it does, for sm_90.
// REQUIRES: cuda
// RUN: not %nvcc -arch=sm_90 -c %s -o %t.orig.o 2>&1 | FileCheck %s --check-prefix=BEFORE
// RUN: forge-port %s --to sm_90 -o %t.cu 2> %t.err
// RUN: FileCheck %s --check-prefix=DIAG --input-file=%t.err
// RUN: FileCheck %s --check-prefix=FIX --input-file=%t.cu
// RUN: %nvcc -arch=sm_90 -c %t.cu -o %t.o
// RUN: cp %s %t.in.cu && forge-port %t.in.cu --to sm_90 -i --no-validate 2>/dev/null
// RUN: diff %t.cu %t.in.cu

#include <cstdio>
#include <cuda_runtime.h>

__device__ float warpSum(float v) {
  for (int offset = 16; offset > 0; offset /= 2)
    v += __shfl_down(v, offset);
  return v;
}

__global__ void flags(const float *in, float *out, unsigned *mask, int *any) {
  float v = in[threadIdx.x];
  unsigned b = __ballot(v > 0.0f);
  int a = __any(v < 0.0f);
  float s = warpSum(v);
#if __CUDA_ARCH__ == 800
  out[threadIdx.x] = s;
#else
  out[threadIdx.x] = s + 0.0f;
#endif
  if (threadIdx.x == 0) {
    *mask = b;
    *any = a;
  }
}

int main() {
  cudaDeviceProp prop;
  int dev = 0;
  cudaGetDeviceProperties(&prop, dev);
  printf("%d kHz\n", prop.clockRate);
  return 0;
}

// BEFORE: error

// DIAG: warning: '__shfl_down' was removed in CUDA 13; use '__shfl_down_sync' [warp-sync-intrinsics]
// DIAG: warning: '__ballot' was removed in CUDA 13; use '__ballot_sync' [warp-sync-intrinsics]
// DIAG: warning: '__any' was removed in CUDA 13; use '__any_sync' [warp-sync-intrinsics]
// DIAG: nvcc compiles the patched file for sm_90
// Nothing names the source arch (no --from, no -arch): nvcc compiles for
// the target alone, and the table lists the target's resources.
// DIAG: resources per kernel, sm_90 (occupancy

// FIX: v += __shfl_down_sync(0xffffffff, v, offset);
// FIX: unsigned b = __ballot_sync(0xffffffff, v > 0.0f);
// FIX: int a = __any_sync(0xffffffff, v < 0.0f);
// FIX: #if __CUDA_ARCH__ >= 800
// FIX: cudaDeviceGetAttribute(&v_, cudaDevAttrClockRate, dev)
