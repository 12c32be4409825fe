// Symbols named by strings compile against CUDA 13's headers (a string
// literal binds to the symbol template) and fail at run time with
// cudaErrorInvalidSymbol. The fix passes the variable of that name.
// REQUIRES: cuda
// RUN: forge-port port --checks=legacy-runtime-hazards --to sm_90 --no-validate %s -o %t.cu 2>&1 | FileCheck %s --check-prefix=DIAG --implicit-check-not='{{warning|error}}:'
// RUN: FileCheck %s --check-prefix=FIX --match-full-lines --input-file=%t.cu
// RUN: %nvcc -arch=sm_90 -c %t.cu -o %t.o

#include <cuda_runtime.h>

__constant__ float coeffs[16];
__device__ int counter;
#define NAME_OF_TABLE "coeffs"

__global__ void scale(float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    x[i] *= coeffs[i % 16] + counter;
}

void upload(const float *h, int *out, float *back) {
  cudaMemcpyToSymbol("coeffs", h, sizeof(float) * 16);
  // DIAG: [[@LINE-1]]:22: warning: 'cudaMemcpyToSymbol' with the symbol's name as a string: string symbols were removed in CUDA 5.0 and the call fails at run time with cudaErrorInvalidSymbol; pass the variable itself [legacy-runtime-hazards]
  // DIAG: :11:20: note: 'coeffs' is declared here
  // FIX: {{^}}  cudaMemcpyToSymbol(coeffs, h, sizeof(float) * 16);
  void *p = nullptr;
  cudaGetSymbolAddress(&p, "counter");
  // DIAG: [[@LINE-1]]:28: warning: 'cudaGetSymbolAddress' with the symbol's name
  // FIX: {{^}}  cudaGetSymbolAddress(&p, counter);
  cudaMemcpyFromSymbolAsync(back, "coeffs", sizeof(float), 0, cudaMemcpyDeviceToHost, 0);
  // DIAG: [[@LINE-1]]:35: warning: 'cudaMemcpyFromSymbolAsync' with the symbol's name
  // FIX: {{^}}  cudaMemcpyFromSymbolAsync(back, coeffs, sizeof(float), 0, cudaMemcpyDeviceToHost, 0);
  cudaMemcpyToSymbol("offsets", h, sizeof(float));
  // DIAG: [[@LINE-1]]:22: warning: 'cudaMemcpyToSymbol' with the symbol's name
  // DIAG: [[@LINE-2]]:22: note: not rewritten: no __device__ or __constant__ variable named 'offsets' is declared in this file
  // FIX: {{^}}  cudaMemcpyToSymbol("offsets", h, sizeof(float));
  cudaMemcpyToSymbol(NAME_OF_TABLE, h, sizeof(float));
  // DIAG: [[@LINE-1]]:22: warning: 'cudaMemcpyToSymbol' with the symbol's name
  // DIAG: [[@LINE-2]]:22: note: not rewritten: the name is written inside a macro
  // The variable itself is already right.
  cudaMemcpyToSymbol(coeffs, h, sizeof(float) * 16);
}
