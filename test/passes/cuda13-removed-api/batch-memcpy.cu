// CUDA 13 dropped the failIdx output of CUDA 12.8's batched copies
// (cuda_runtime_api.h of 13.0: cudaMemcpyBatchAsync(dsts, srcs, sizes, count,
// attrs, attrsIdxs, numAttrs, stream), cudaMemcpy3DBatchAsync(numOps, opList,
// flags, stream); generated_cudart_removed_meta.h keeps the 12.8 lists with
// size_t *failIdx). An old call is Clang's "no matching function", which the
// pass reports instead: a null failIdx is deleted (the output compiles with
// nvcc); one the code would read is reported, not deleted.
// REQUIRES: cuda
// RUN: not %nvcc -arch=sm_90 -c %s -o %t.orig.o 2>&1 | FileCheck %s --check-prefix=BEFORE
// RUN: forge-port port --checks=cuda13-removed-api --to sm_90 %s -o %t.cu > %t.log 2>&1
// RUN: FileCheck %s --check-prefix=DIAG --implicit-check-not='error:' --input-file=%t.log
// RUN: FileCheck %s --check-prefix=FIX --match-full-lines --input-file=%t.cu
// RUN: %nvcc -arch=sm_90 -c %t.cu -o %t.o
// RUN: not forge-port port --checks=cuda13-removed-api --to sm_90 --no-validate %s -- -DREAD_FAIL_INDEX 2>&1 | FileCheck %s --check-prefix=READ

#include <cuda_runtime.h>

#define CHECK(x)                                                               \
  do {                                                                         \
    if ((x) != cudaSuccess)                                                    \
      return 1;                                                                \
  } while (0)

int copy(void **dsts, void **srcs, size_t *sizes, size_t n, cudaMemcpyAttributes *attrs,
         size_t *idxs, cudaMemcpy3DBatchOp *ops, cudaStream_t s) {
  CHECK(cudaMemcpyBatchAsync(dsts, srcs, sizes, n, attrs, idxs, 1, nullptr, s));
  // DIAG-DAG: batch-memcpy.cu:[[@LINE-1]]:9: error: 'cudaMemcpyBatchAsync' has no 'size_t *failIdx' argument since CUDA 13 (CUDA 12.8 had it before the stream) [cuda13-removed-api]
  // FIX: CHECK(cudaMemcpyBatchAsync(dsts, srcs, sizes, n, attrs, idxs, 1, s));
  cudaMemcpy3DBatchAsync(2, ops, NULL, 0, s);
  // DIAG-DAG: batch-memcpy.cu:[[@LINE-1]]:3: error: 'cudaMemcpy3DBatchAsync' has no 'size_t *failIdx' argument since CUDA 13 (CUDA 12.8 had it after the operations) [cuda13-removed-api]
  // FIX: cudaMemcpy3DBatchAsync(2, ops, 0, s);
#ifdef READ_FAIL_INDEX
  size_t failed = 0;
  if (cudaMemcpy3DBatchAsync(2, ops, &failed, 0, s) != cudaSuccess)
    return int(failed);
  // READ: batch-memcpy.cu:[[@LINE-2]]:7: error: 'cudaMemcpy3DBatchAsync' has no 'size_t *failIdx' argument since CUDA 13
  // READ: note: not rewritten: failIdx is not null, and CUDA 13 does not say which copy failed; drop it and find the failed copy by hand
#endif
  // Already CUDA 13: untouched.
  cudaMemcpy3DBatchAsync(2, ops, 0, s);
  // FIX: cudaMemcpy3DBatchAsync(2, ops, 0, s);
  return 0;
}

// BEFORE: error
// DIAG: batch-memcpy.cu: 2 error(s), 0 warning(s) for sm_90; 2 fixed; nvcc compiles the patched file for sm_90
