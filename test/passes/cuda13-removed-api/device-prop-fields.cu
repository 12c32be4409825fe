// The cudaDeviceProp fields that CUDA 13.0 removed besides the clocks, the
// overlap, the timeout and the compute mode (release notes, "Changes to
// cudaDeviceProperties structure"; driver_types.h of 13.0 has none of them):
// maxTexture1DLinear and singleToDoublePrecisionPerfRatio become a query of
// the attribute they were read from (13.0 still declares
// cudaDevAttrMaxTexture1DLinearWidth and
// cudaDevAttrSingleToDoublePrecisionPerfRatio); cooperativeMultiDeviceLaunch
// has no replacement (cooperative-multi-device.cu). The output compiles with
// nvcc.
// REQUIRES: cuda
// RUN: not %nvcc -arch=sm_90 -c %s -o %t.orig.o 2>&1 | FileCheck %s --check-prefix=BEFORE
// RUN: forge-port port --checks=cuda13-removed-api --to sm_90 %s -o %t.cu > %t.log 2>&1
// RUN: FileCheck %s --check-prefix=DIAG --implicit-check-not='error:' --implicit-check-not='warning:' --input-file=%t.log
// RUN: FileCheck %s --check-prefix=FIX --match-full-lines --input-file=%t.cu
// RUN: %nvcc -arch=sm_90 -c %t.cu -o %t.o

#include <cstdio>
#include <cuda_runtime.h>

void describe(int dev) {
  cudaDeviceProp prop;
  cudaGetDeviceProperties(&prop, dev);
  printf("%d %d\n", prop.maxTexture1DLinear, prop.singleToDoublePrecisionPerfRatio);
  // DIAG-DAG: device-prop-fields.cu:[[@LINE-1]]:26: error: 'cudaDeviceProp::maxTexture1DLinear' was removed in CUDA 13; use cudaDeviceGetAttribute(&value, cudaDevAttrMaxTexture1DLinearWidth, device) [cuda13-removed-api]
  // DIAG-DAG: device-prop-fields.cu:[[@LINE-2]]:51: error: 'cudaDeviceProp::singleToDoublePrecisionPerfRatio' was removed in CUDA 13; use cudaDeviceGetAttribute(&value, cudaDevAttrSingleToDoublePrecisionPerfRatio, device) [cuda13-removed-api]
  // FIX: printf("%d %d\n", [&] { int v_ = 0; cudaDeviceGetAttribute(&v_, cudaDevAttrMaxTexture1DLinearWidth, dev); return v_; }(), [&] { int v_ = 0; cudaDeviceGetAttribute(&v_, cudaDevAttrSingleToDoublePrecisionPerfRatio, dev); return v_; }());
}

// BEFORE: error: class "cudaDeviceProp" has no member "maxTexture1DLinear"
// DIAG: device-prop-fields.cu: 2 error(s), 0 warning(s) for sm_90; 2 fixed; nvcc compiles the patched file for sm_90
