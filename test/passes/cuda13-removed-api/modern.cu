// RUN: forge-port port --checks=cuda13-removed-api --to sm_90 --no-validate %s -o %t.cu -- %cuda_mock_flags 2>&1 | FileCheck %s --check-prefix=DIAG --implicit-check-not='{{warning|error}}:'
// RUN: FileCheck %s --check-prefix=FIX --match-full-lines --input-file=%t.cu
// RUN: %clang_cuda_mock -fsyntax-only %t.cu
// DIAG: modern.cu: 0 error(s), 0 warning(s) for sm_90; 0 fixed

// Code already written for CUDA 13: no diagnostic, no change.

int clockKHz(int dev) {
  int khz = 0;
  cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, dev);
  cudaDeviceProp prop;
  cudaGetDeviceProperties(&prop, dev);
  return khz + prop.multiProcessorCount;
  // FIX: return khz + prop.multiProcessorCount;
}

__global__ void copy(const double4_16a *in, double4_32a *out, float4 *f) {
  out[threadIdx.x].x = in[threadIdx.x].x + f[threadIdx.x].x;
  // FIX: out[threadIdx.x].x = in[threadIdx.x].x + f[threadIdx.x].x;
}
