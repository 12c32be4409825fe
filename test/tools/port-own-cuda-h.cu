// A project header named cuda.h on the -I path must not stand in for the
// toolkit's inside Clang's CUDA wrapper (which includes "cuda.h" for
// CUDA_VERSION and the driver types first); nvcc includes no cuda.h itself,
// so nvcc builds this file. The port parses it and exits 0, and the
// project's "cuda.h" is still the one this file gets.
// REQUIRES: cuda
// RUN: %nvcc -arch=sm_90 -c %s -o %t.o -I%S/Inputs/own-cuda-h/util
// RUN: forge-port %s --to sm_90 -- -I%S/Inputs/own-cuda-h/util > %t.log 2>&1
// RUN: FileCheck %s --input-file=%t.log --implicit-check-not='error:' --implicit-check-not='could not parse'
// CHECK: port-own-cuda-h.cu: 0 error(s), 0 warning(s) for sm_90; 0 fixed{{.*}}nvcc compiles the file for sm_90

#include "cuda.h"
#include <cuda_runtime.h>

#ifndef OWN_CUDA_H
#error "the project's cuda.h was not the one included"
#endif

__global__ void twice(float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    x[i] *= 2.0f;
}

void checkCUDAError(const char *msg) {
  cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess)
    fprintf(stderr, "%s: %s\n", msg, cudaGetErrorString(e));
}
