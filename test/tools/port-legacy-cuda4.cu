// End to end with the real CUDA 13 headers and nvcc: a CUDA 4-8 era file
// (cudaThreadSynchronize, cudaThreadExit, cudaDeviceProp::computeMode around
// a kernel, error checks through a cutil-style macro) that nvcc 13 rejects.
// After `forge-port --to sm_90 -o` it compiles; the run exits 0, and its
// summary counts each removed call or field once (Clang's own errors for
// them, "did you mean" included, are not shown).
// REQUIRES: cuda
// RUN: not %nvcc -arch=sm_90 -c %s -o %t.orig.o 2>&1 | FileCheck %s --check-prefix=BEFORE
// RUN: forge-port %s --to sm_90 -o %t.cu 2> %t.err
// RUN: FileCheck %s --check-prefix=DIAG --input-file=%t.err --implicit-check-not='did you mean' --implicit-check-not='errors generated' --implicit-check-not='no member named'
// RUN: FileCheck %s --check-prefix=FIX --input-file=%t.cu
// RUN: %nvcc -arch=sm_90 -c %t.cu -o %t.o
// RUN: %nvcc -arch=sm_100 -c %t.cu -o %t.100.o

#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CUDA_SAFE_CALL(call)                                                   \
  do {                                                                         \
    cudaError_t err = call;                                                    \
    if (cudaSuccess != err) {                                                  \
      fprintf(stderr, "Cuda error in file '%s' in line %i : %s.\n", __FILE__,  \
              __LINE__, cudaGetErrorString(err));                              \
      exit(EXIT_FAILURE);                                                      \
    }                                                                          \
  } while (0)

__global__ void saxpy(int n, float a, const float *x, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = a * x[i] + y[i];
}

int main(int argc, char **argv) {
  int dev = 0;
  cudaDeviceProp deviceProp;
  CUDA_SAFE_CALL(cudaGetDeviceProperties(&deviceProp, dev));
  if (deviceProp.computeMode == cudaComputeModeProhibited) {
    fprintf(stderr, "Error: device is running in <Compute Mode Prohibited>\n");
    return -1;
  }
  const int n = 1 << 20;
  float *x, *y;
  CUDA_SAFE_CALL(cudaMalloc((void **)&x, n * sizeof(float)));
  CUDA_SAFE_CALL(cudaMalloc((void **)&y, n * sizeof(float)));
  saxpy<<<(n + 255) / 256, 256>>>(n, 2.0f, x, y);
  cudaThreadSynchronize();
  CUDA_SAFE_CALL(cudaFree(x));
  CUDA_SAFE_CALL(cudaFree(y));
  cudaThreadExit();
  return 0;
}

// BEFORE: error: class "cudaDeviceProp" has no member "computeMode"
// BEFORE: error: identifier "cudaThreadSynchronize" is undefined
// BEFORE: error: identifier "cudaThreadExit" is undefined

// DIAG: error: 'cudaDeviceProp::computeMode' was removed in CUDA 13; use cudaDeviceGetAttribute(&value, cudaDevAttrComputeMode, device) [cuda13-removed-api]
// DIAG: error: 'cudaThreadSynchronize' was removed in CUDA 13 (deprecated since CUDA 4.0); use 'cudaDeviceSynchronize', which does the same [cuda13-removed-api]
// DIAG: error: 'cudaThreadExit' was removed in CUDA 13 (deprecated since CUDA 4.0); use 'cudaDeviceReset', which does the same [cuda13-removed-api]
// DIAG: port-legacy-cuda4.cu: 3 error(s), 0 warning(s) for sm_90; 3 fixed; nvcc compiles the patched file for sm_90
// DIAG: saxpy(int, float,

// FIX: if ([&] { int v_ = 0; cudaDeviceGetAttribute(&v_, cudaDevAttrComputeMode, dev); return v_; }() == cudaComputeModeProhibited) {
// FIX: cudaDeviceSynchronize();
// FIX: cudaDeviceReset();
