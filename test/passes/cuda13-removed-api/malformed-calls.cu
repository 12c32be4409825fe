// Broken and unusual uses of the removed and changed names: reported with
// the reason there is no fix, never a crash (`not` fails on one).
// RUN: not forge-port port --checks=cuda13-removed-api --to sm_90 --no-validate %s -o %t.cu > %t.log 2>&1
// RUN: FileCheck %s --input-file=%t.log

#include <cub/cub.cuh>
#include <cuda_runtime.h>

#define PASTE(a, b) a##b

void f(cudaGraph_t g, cudaStream_t s) {
  auto p = &cudaStreamGetCaptureInfo_v2;
  // CHECK-DAG: malformed-calls.cu:[[@LINE-1]]:13: error: 'cudaStreamGetCaptureInfo_v2' was removed in CUDA 13
  // CHECK-DAG: malformed-calls.cu:[[@LINE-2]]:13: note: not rewritten: the call's arguments were not found
  PASTE(cudaStreamGetCaptureInfo, _v2)(s, nullptr, nullptr, nullptr, nullptr, nullptr);
  // CHECK-DAG: malformed-calls.cu:[[@LINE-1]]:3: error: 'cudaStreamGetCaptureInfo_v2' was removed in CUDA 13
  // CHECK-DAG: malformed-calls.cu:[[@LINE-2]]:3: note: not rewritten: the name is formed by the preprocessor
  cudaGraphAddDependencies(g);
  // CHECK-DAG: malformed-calls.cu:[[@LINE-1]]:3: note: not rewritten: the call has neither the old form cudaGraphAddDependencies(graph, from, to, count) nor CUDA 13's
  cudaGetDriverEntryPoint();
  // CHECK-DAG: malformed-calls.cu:[[@LINE-1]]:3: note: not rewritten: the call has neither the old form cudaGetDriverEntryPoint(symbol, funcPtr, flags[, status]) nor CUDA 13's
  namespace alias = cub;
  alias::Sum sum;
  // CHECK-DAG: malformed-calls.cu:[[@LINE-1]]:10: error: 'cub::Sum' was removed in CCCL 3.0 (CUDA 13.0)
  // CHECK-DAG: malformed-calls.cu:[[@LINE-2]]:10: note: not rewritten: the namespace is written 'alias', not 'cub'
  cub::Max
  cudaStreamGetCaptureInfo_v2(
}
// CHECK: malformed-calls.cu: 9 error(s) (6 from the passes, 3 from Clang's parse), 1 warning(s) for sm_90; 1 fixed
