// The CUDA 12.3 names of the edge-data forms that graph-edges.cu does not
// cover (cudaGraphRemoveDependencies_v2, cudaGraphNodeGetDependencies_v2,
// cudaGraphNodeGetDependentNodes_v2, cudaStreamUpdateCaptureDependencies_v2,
// cudaGraphAddNode_v2): absent from 13.0's headers, whose plain names take
// their arguments. Each is renamed; Clang's guess for a name (a driver call
// from cuda.h, whose types differ) may add errors of its own, printed, not
// counted once nvcc compiles the patched file. And ulong4, deprecated in 13.0,
// renamed to ulong4_16a with every use in the file. The output compiles with
// nvcc.
// REQUIRES: cuda
// RUN: not %nvcc -arch=sm_90 -c %s -o %t.orig.o 2>&1 | FileCheck %s --check-prefix=BEFORE
// RUN: forge-port port --checks=cuda13-removed-api --to sm_90 %s -o %t.cu > %t.log 2>&1
// RUN: FileCheck %s --check-prefix=DIAG --implicit-check-not='undeclared identifier' --implicit-check-not='[cuda13-removed-api]' --input-file=%t.log
// RUN: FileCheck %s --check-prefix=FIX --match-full-lines --input-file=%t.cu
// RUN: %nvcc -arch=sm_90 -c %t.cu -o %t.o

#include <cuda_runtime.h>

#define CHECK(x)                                                               \
  do {                                                                         \
    if ((x) != cudaSuccess)                                                    \
      return 1;                                                                \
  } while (0)

__global__ void widen(const ulong4 *in, unsigned long *out) {
  // DIAG-DAG: graph-renames.cu:[[@LINE-1]]:29: warning: 'ulong4' is deprecated in CUDA 13; use 'ulong4_16a' (16-byte aligned, same layout as before) or 'ulong4_32a' [cuda13-removed-api]
  // FIX: __global__ void widen(const ulong4_16a *in, unsigned long *out) {
  ulong4 v = in[threadIdx.x];
  // DIAG-DAG: graph-renames.cu:[[@LINE-1]]:3: warning: 'ulong4' is deprecated in CUDA 13
  // FIX: ulong4_16a v = in[threadIdx.x];
  out[threadIdx.x] = v.x + v.y + v.z + v.w;
}

int edges(cudaGraph_t g, cudaGraphNode_t a, cudaGraphNode_t b, cudaStream_t s) {
  cudaGraphNode_t nodes[4];
  cudaGraphEdgeData data[4];
  size_t n = 4;
  CHECK(cudaGraphRemoveDependencies_v2(g, &a, &b, nullptr, 1));
  // DIAG-DAG: graph-renames.cu:[[@LINE-1]]:9: error: 'cudaGraphRemoveDependencies_v2' was removed in CUDA 13; use 'cudaGraphRemoveDependencies', which takes the same arguments since CUDA 13 [cuda13-removed-api]
  // FIX: CHECK(cudaGraphRemoveDependencies(g, &a, &b, nullptr, 1));
  cudaGraphNodeGetDependencies_v2(a, nodes, data, &n);
  // DIAG-DAG: graph-renames.cu:[[@LINE-1]]:3: error: 'cudaGraphNodeGetDependencies_v2' was removed in CUDA 13; use 'cudaGraphNodeGetDependencies', which takes the same arguments since CUDA 13 [cuda13-removed-api]
  // FIX: cudaGraphNodeGetDependencies(a, nodes, data, &n);
  // Clang's guess, cuda.h's cuGraphNodeGetDependencies, takes CUgraphEdgeData.
  // DIAG-DAG: graph-renames.cu:[[@LINE-4]]:45: error: cannot initialize a parameter of type 'CUgraphEdgeData *'
  cudaGraphNodeGetDependentNodes_v2(b, nodes, data, &n);
  // DIAG-DAG: graph-renames.cu:[[@LINE-1]]:3: error: 'cudaGraphNodeGetDependentNodes_v2' was removed in CUDA 13; use 'cudaGraphNodeGetDependentNodes', which takes the same arguments since CUDA 13 [cuda13-removed-api]
  // FIX: cudaGraphNodeGetDependentNodes(b, nodes, data, &n);
  // DIAG-DAG: graph-renames.cu:[[@LINE-3]]:47: error: cannot initialize a parameter of type 'CUgraphEdgeData *'
  CHECK(cudaStreamUpdateCaptureDependencies_v2(s, nodes, data, 1, cudaStreamAddCaptureDependencies));
  // DIAG-DAG: graph-renames.cu:[[@LINE-1]]:9: error: 'cudaStreamUpdateCaptureDependencies_v2' was removed in CUDA 13; use 'cudaStreamUpdateCaptureDependencies', which takes the same arguments since CUDA 13 [cuda13-removed-api]
  // FIX: CHECK(cudaStreamUpdateCaptureDependencies(s, nodes, data, 1, cudaStreamAddCaptureDependencies));
  // DIAG-DAG: graph-renames.cu:[[@LINE-3]]:58: error: cannot initialize a parameter of type 'const CUgraphEdgeData *'
  cudaGraphNodeParams params = {};
  params.type = cudaGraphNodeTypeEmpty;
  cudaGraphAddNode_v2(&b, g, &a, nullptr, 1, &params);
  // DIAG-DAG: graph-renames.cu:[[@LINE-1]]:3: error: 'cudaGraphAddNode_v2' was removed in CUDA 13; use 'cudaGraphAddNode', which takes the same arguments since CUDA 13 [cuda13-removed-api]
  // FIX: cudaGraphAddNode(&b, g, &a, nullptr, 1, &params);
  // DIAG-DAG: graph-renames.cu:[[@LINE-3]]:46: error: cannot initialize a parameter of type 'CUgraphNodeParams *'
  return 0;
}

// BEFORE: error
// DIAG: graph-renames.cu: 5 error(s), 2 warning(s) for sm_90; 7 fixed; nvcc compiles the patched file for sm_90
