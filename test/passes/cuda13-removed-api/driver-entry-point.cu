// cudaGetDriverEntryPoint is deprecated in CUDA 13 (cuda_runtime_api.h:
// "This API is deprecated and cudaGetDriverEntryPointByVersion (with a
// hardcoded cudaVersion) should be used instead"). The old call looked the
// symbol up for the runtime's version; the rewrite passes CUDART_VERSION,
// that version with the static runtime nvcc links by default. The call
// still compiles, so this is a warning with the fix; the output compiles
// with nvcc, as the input did.
// REQUIRES: cuda
// RUN: forge-port port --checks=cuda13-removed-api --to sm_90 %s -o %t.cu > %t.log 2>&1
// RUN: FileCheck %s --check-prefix=DIAG --implicit-check-not='error:' --implicit-check-not='warning:' --input-file=%t.log
// RUN: FileCheck %s --check-prefix=FIX --match-full-lines --input-file=%t.cu
// RUN: %nvcc -arch=sm_90 -c %t.cu -o %t.o 2>&1 | FileCheck %s --check-prefix=NVCC --allow-empty

#include <cuda_runtime.h>

#define CHECK(x)                                                               \
  do {                                                                         \
    if ((x) != cudaSuccess)                                                    \
      return nullptr;                                                          \
  } while (0)

void *lookup(const char *symbol) {
  void *fn = nullptr;
  cudaDriverEntryPointQueryResult status;
  CHECK(cudaGetDriverEntryPoint(symbol, &fn, cudaEnableDefault, &status));
  // DIAG-DAG: driver-entry-point.cu:[[@LINE-1]]:9: warning: 'cudaGetDriverEntryPoint' is deprecated in CUDA 13; use 'cudaGetDriverEntryPointByVersion' (CUDA 12.5) with cudaVersion = CUDART_VERSION, the runtime version the old call looked the symbol up for [cuda13-removed-api]
  // FIX: CHECK(cudaGetDriverEntryPointByVersion(symbol, &fn, CUDART_VERSION, cudaEnableDefault, &status));
  if (status != cudaDriverEntryPointSuccess)
    return nullptr;
  void *legacy = nullptr;
  cudaGetDriverEntryPoint("cuMemAlloc", &legacy, cudaEnableLegacyStream);
  // DIAG-DAG: driver-entry-point.cu:[[@LINE-1]]:3: warning: 'cudaGetDriverEntryPoint' is deprecated in CUDA 13
  // FIX: cudaGetDriverEntryPointByVersion("cuMemAlloc", &legacy, CUDART_VERSION, cudaEnableLegacyStream);
  // Already the new call: untouched.
  cudaGetDriverEntryPointByVersion("cuMemFree", &legacy, 12000, cudaEnableDefault, &status);
  // FIX: cudaGetDriverEntryPointByVersion("cuMemFree", &legacy, 12000, cudaEnableDefault, &status);
  return legacy ? fn : nullptr;
}

// DIAG: driver-entry-point.cu: 0 error(s), 2 warning(s) for sm_90; 2 fixed; nvcc compiles the patched file for sm_90
// NVCC-NOT: deprecated
