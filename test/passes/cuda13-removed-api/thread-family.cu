// The cudaThread* calls (deprecated since CUDA 4.0) are gone from CUDA 13's
// cuda_runtime_api.h: with the real headers each use is Clang's "use of
// undeclared identifier" (with or without its own "did you mean"). The pass
// reports each once, as an error with the cudaDevice* rename, and Clang's
// error is neither printed nor counted; the output compiles with nvcc.
// REQUIRES: cuda
// RUN: not %nvcc -arch=sm_100 -c %s -o %t.orig.o 2>&1 | FileCheck %s --check-prefix=BEFORE
// RUN: forge-port port --checks=cuda13-removed-api --to sm_100 %s -o %t.cu > %t.log 2>&1
// RUN: FileCheck %s --check-prefix=DIAG --implicit-check-not='error:' --implicit-check-not='did you mean' --implicit-check-not='errors generated' --input-file=%t.log
// RUN: FileCheck %s --check-prefix=MACRO --input-file=%t.log
// RUN: FileCheck %s --check-prefix=FIX --match-full-lines --input-file=%t.cu
// RUN: %nvcc -arch=sm_100 -c %t.cu -o %t.o
// Headers that still declare them (CUDA 12): the same finding from the AST.
// RUN: not forge-port port --checks=cuda13-removed-api --to sm_90 --no-validate %s -- -DOLD_HEADERS 2>&1 | FileCheck %s --check-prefix=OLD
// Not written: the user's file keeps the errors, so the run fails.
// RUN: not forge-port port --checks=cuda13-removed-api --to sm_100 --no-validate %s 2>&1 | FileCheck %s --check-prefix=REPORT

#include <cstdio>
#include <cuda_runtime.h>

#ifdef OLD_HEADERS
cudaError_t cudaThreadSynchronize(void);
#endif

#define CUDA_SAFE_CALL(call)                                                   \
  do {                                                                         \
    cudaError_t err = call;                                                    \
    if (err != cudaSuccess)                                                    \
      printf("%s\n", cudaGetErrorString(err));                                 \
  } while (0)
// A use in a macro's body is renamed where it is spelled, once for both
// expansions.
#define SYNC_ALL() cudaThreadSynchronize()
// MACRO: thread-family.cu:[[@LINE-1]]:20: error: 'cudaThreadSynchronize' was removed
// MACRO-NOT: thread-family.cu:[[@LINE-2]]:20: error:
// FIX: #define SYNC_ALL() cudaDeviceSynchronize()

__global__ void fill(float *a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    a[i] = 1.0f;
}

int main() {
  size_t heap = 0;
  cudaFuncCache cache;
  cudaThreadSetLimit(cudaLimitMallocHeapSize, 1 << 20);
  // DIAG: thread-family.cu:[[@LINE-1]]:3: error: 'cudaThreadSetLimit' was removed in CUDA 13 (deprecated since CUDA 4.0); use 'cudaDeviceSetLimit', which does the same [cuda13-removed-api]
  // FIX: cudaDeviceSetLimit(cudaLimitMallocHeapSize, 1 << 20);
  CUDA_SAFE_CALL(cudaThreadGetLimit(&heap, cudaLimitMallocHeapSize));
  // DIAG: thread-family.cu:[[@LINE-1]]:18: error: 'cudaThreadGetLimit' was removed in CUDA 13 (deprecated since CUDA 4.0); use 'cudaDeviceGetLimit', which does the same [cuda13-removed-api]
  // FIX: CUDA_SAFE_CALL(cudaDeviceGetLimit(&heap, cudaLimitMallocHeapSize));
  cudaThreadSetCacheConfig(cudaFuncCachePreferL1);
  // DIAG: thread-family.cu:[[@LINE-1]]:3: error: 'cudaThreadSetCacheConfig' was removed in CUDA 13 (deprecated since CUDA 4.0); use 'cudaDeviceSetCacheConfig', which does the same [cuda13-removed-api]
  // FIX: cudaDeviceSetCacheConfig(cudaFuncCachePreferL1);
  cudaThreadGetCacheConfig(&cache);
  // DIAG: thread-family.cu:[[@LINE-1]]:3: error: 'cudaThreadGetCacheConfig' was removed in CUDA 13 (deprecated since CUDA 4.0); use 'cudaDeviceGetCacheConfig', which does the same [cuda13-removed-api]
  // FIX: cudaDeviceGetCacheConfig(&cache);
  float *d = nullptr;
  cudaMalloc(&d, 1000 * sizeof(float));
  fill<<<(1000 + 255) / 256, 256>>>(d, 1000);
  cudaThreadSynchronize();
  // DIAG: thread-family.cu:[[@LINE-1]]:3: error: 'cudaThreadSynchronize' was removed in CUDA 13 (deprecated since CUDA 4.0); use 'cudaDeviceSynchronize', which does the same [cuda13-removed-api]
  // FIX: cudaDeviceSynchronize();
  // OLD: thread-family.cu:[[@LINE-3]]:3: error: 'cudaThreadSynchronize' was removed in CUDA 13 (deprecated since CUDA 4.0); use 'cudaDeviceSynchronize', which does the same [cuda13-removed-api]
  SYNC_ALL();
  SYNC_ALL();
  // DIAG: thread-family.cu:{{[0-9]+}}:20: error: 'cudaThreadSynchronize' was removed
  CUDA_SAFE_CALL(cudaThreadSynchronize());
  // DIAG: thread-family.cu:[[@LINE-1]]:18: error: 'cudaThreadSynchronize' was removed
  // FIX: CUDA_SAFE_CALL(cudaDeviceSynchronize());
  cudaFree(d);
  CUDA_SAFE_CALL(cudaThreadExit());
  // DIAG: thread-family.cu:[[@LINE-1]]:18: error: 'cudaThreadExit' was removed in CUDA 13 (deprecated since CUDA 4.0); use 'cudaDeviceReset', which does the same [cuda13-removed-api]
  // FIX: CUDA_SAFE_CALL(cudaDeviceReset());
  printf("%zu %d\n", heap, int(cache));
  return 0;
}

// BEFORE: error: identifier "cudaThreadSynchronize" is undefined

// DIAG: thread-family.cu: 8 error(s), 0 warning(s) for sm_100; 8 fixed; nvcc compiles the patched file for sm_100

// REPORT: thread-family.cu: 8 error(s), 0 warning(s) for sm_100; 8 fixed (use -o, -i or --diff to apply)
