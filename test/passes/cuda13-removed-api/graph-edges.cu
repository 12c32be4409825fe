// CUDA 13 gave the graph calls the edge-data signatures that CUDA 12.3 had
// added as _v2/_v3 (cuda_runtime_api.h of 13.0: cudaGraphAddDependencies(graph,
// from, to, edgeData, numDependencies), ...) and dropped the suffixed names;
// generated_cudart_removed_meta.h keeps the old parameter lists. An old-form
// call is Clang's "no matching function", a suffixed name "use of undeclared
// identifier": the pass reports each once, as an error whose fix inserts
// nullptr for the edge data (default edges, what the old form meant) or
// renames; the output compiles with nvcc. Where Clang's guess for a suffixed
// name is a driver call (cuStreamGetCaptureInfo from cuda.h), its arguments
// are Clang's error too: printed, not counted (nvcc compiles the result),
// gone with the fix.
// REQUIRES: cuda
// RUN: not %nvcc -arch=sm_90 -c %s -o %t.orig.o 2>&1 | FileCheck %s --check-prefix=BEFORE
// RUN: forge-port port --checks=cuda13-removed-api --to sm_90 %s -o %t.cu > %t.log 2>&1
// RUN: FileCheck %s --check-prefix=DIAG --implicit-check-not='no matching function' --implicit-check-not='undeclared identifier' --implicit-check-not='errors generated' --input-file=%t.log
// RUN: FileCheck %s --check-prefix=FIX --match-full-lines --input-file=%t.cu
// RUN: %nvcc -arch=sm_90 -c %t.cu -o %t.o
// Arguments written in a macro's body: reported, not rewritten.
// RUN: not forge-port port --checks=cuda13-removed-api --to sm_90 --no-validate %s -- -DIN_MACRO 2>&1 | FileCheck %s --check-prefix=MACRO
// Headers that still declare the old form (CUDA 12): found in the AST.
// RUN: not forge-port port --checks=cuda13-removed-api --to sm_90 --no-validate %s -- -DOLD_HEADERS 2>&1 | FileCheck %s --check-prefix=OLD

#include <cuda_runtime.h>

#ifdef OLD_HEADERS
cudaError_t cudaGraphAddDependencies(cudaGraph_t, const cudaGraphNode_t *, const cudaGraphNode_t *,
                                     size_t);
#endif

#define CHECK(x)                                                               \
  do {                                                                         \
    if ((x) != cudaSuccess)                                                    \
      return 1;                                                                \
  } while (0)

int edges(cudaGraph_t g, cudaGraphNode_t a, cudaGraphNode_t b, cudaStream_t s) {
  cudaGraphNode_t nodes[4];
  size_t n = 4;
  CHECK(cudaGraphAddDependencies(g, &a, &b, 1));
  // DIAG-DAG: graph-edges.cu:[[@LINE-1]]:9: error: 'cudaGraphAddDependencies' takes a 'const cudaGraphEdgeData *edgeData' argument since CUDA 13 (the form CUDA 12.3 named 'cudaGraphAddDependencies_v2'); nullptr there means default edges, as the old form had [cuda13-removed-api]
  // FIX: CHECK(cudaGraphAddDependencies(g, &a, &b, nullptr, 1));
  // OLD: graph-edges.cu:[[@LINE-3]]:9: error: 'cudaGraphAddDependencies' takes a 'const cudaGraphEdgeData *edgeData' argument since CUDA 13
  cudaGraphRemoveDependencies(g, &a, &b, 1);
  // DIAG-DAG: graph-edges.cu:[[@LINE-1]]:3: error: 'cudaGraphRemoveDependencies' takes a 'const cudaGraphEdgeData *edgeData' argument since CUDA 13
  // FIX: cudaGraphRemoveDependencies(g, &a, &b, nullptr, 1);
  cudaGraphGetEdges(g, nullptr, nullptr, &n);
  // DIAG-DAG: graph-edges.cu:[[@LINE-1]]:3: error: 'cudaGraphGetEdges' takes a 'cudaGraphEdgeData *edgeData' argument since CUDA 13
  // FIX: cudaGraphGetEdges(g, nullptr, nullptr, nullptr, &n);
  cudaGraphNodeGetDependencies(a, nodes, &n);
  // DIAG-DAG: graph-edges.cu:[[@LINE-1]]:3: error: 'cudaGraphNodeGetDependencies' takes a 'cudaGraphEdgeData *edgeData' argument since CUDA 13
  // FIX: cudaGraphNodeGetDependencies(a, nodes, nullptr, &n);
  cudaGraphNodeGetDependentNodes(a, nodes, &n);
  // DIAG-DAG: graph-edges.cu:[[@LINE-1]]:3: error: 'cudaGraphNodeGetDependentNodes' takes a 'cudaGraphEdgeData *edgeData' argument since CUDA 13
  // FIX: cudaGraphNodeGetDependentNodes(a, nodes, nullptr, &n);
  cudaStreamUpdateCaptureDependencies(s, nodes, 2, cudaStreamSetCaptureDependencies);
  // DIAG-DAG: graph-edges.cu:[[@LINE-1]]:3: error: 'cudaStreamUpdateCaptureDependencies' takes a 'const cudaGraphEdgeData *dependencyData' argument since CUDA 13
  // FIX: cudaStreamUpdateCaptureDependencies(s, nodes, nullptr, 2, cudaStreamSetCaptureDependencies);
  cudaStreamUpdateCaptureDependencies(s, nodes, n);
  // DIAG-DAG: graph-edges.cu:[[@LINE-1]]:3: error: 'cudaStreamUpdateCaptureDependencies' takes
  // FIX: cudaStreamUpdateCaptureDependencies(s, nodes, nullptr, n);
  cudaGraphNodeParams params = {};
  params.type = cudaGraphNodeTypeEmpty;
  cudaGraphAddNode(&b, g, &a, 1, &params);
  // DIAG-DAG: graph-edges.cu:[[@LINE-1]]:3: error: 'cudaGraphAddNode' takes a 'const cudaGraphEdgeData *dependencyData' argument since CUDA 13
  // FIX: cudaGraphAddNode(&b, g, &a, nullptr, 1, &params);
  cudaStreamCaptureStatus status;
  unsigned long long id;
  cudaGraph_t captured;
  const cudaGraphNode_t *deps;
  CHECK(cudaStreamGetCaptureInfo(s, &status, &id, &captured, &deps, &n));
  // DIAG-DAG: graph-edges.cu:[[@LINE-1]]:9: error: 'cudaStreamGetCaptureInfo' takes a 'const cudaGraphEdgeData **edgeData_out' argument before the dependency count since CUDA 13 (the form CUDA 12.3 named 'cudaStreamGetCaptureInfo_v3'); nullptr there asks for no edge data, as the old form did [cuda13-removed-api]
  // FIX: CHECK(cudaStreamGetCaptureInfo(s, &status, &id, &captured, &deps, nullptr, &n));
  cudaStreamGetCaptureInfo_v2(s, &status, &id, &captured, &deps, &n);
  // DIAG-DAG: graph-edges.cu:[[@LINE-1]]:3: error: 'cudaStreamGetCaptureInfo_v2' was removed in CUDA 13; use 'cudaStreamGetCaptureInfo', which takes a 'const cudaGraphEdgeData **edgeData_out' argument before the dependency count (nullptr: no edge data, as before) [cuda13-removed-api]
  // FIX: cudaStreamGetCaptureInfo(s, &status, &id, &captured, &deps, nullptr, &n);
  CHECK(cudaStreamGetCaptureInfo_v2(s, &status));
  // DIAG-DAG: graph-edges.cu:[[@LINE-1]]:9: error: 'cudaStreamGetCaptureInfo_v2' was removed in CUDA 13
  // FIX: CHECK(cudaStreamGetCaptureInfo(s, &status));
  // The CUDA 12.3 names of the edge-data forms: renamed.
  const cudaGraphEdgeData *data;
  CHECK(cudaGraphAddDependencies_v2(g, &a, &b, nullptr, 1));
  // DIAG-DAG: graph-edges.cu:[[@LINE-1]]:9: error: 'cudaGraphAddDependencies_v2' was removed in CUDA 13; use 'cudaGraphAddDependencies', which takes the same arguments since CUDA 13 [cuda13-removed-api]
  // FIX: CHECK(cudaGraphAddDependencies(g, &a, &b, nullptr, 1));
  cudaStreamGetCaptureInfo_v3(s, &status, &id, &captured, &deps, &data, &n);
  // DIAG-DAG: graph-edges.cu:[[@LINE-1]]:3: error: 'cudaStreamGetCaptureInfo_v3' was removed in CUDA 13; use 'cudaStreamGetCaptureInfo', which takes the same arguments since CUDA 13
  // FIX: cudaStreamGetCaptureInfo(s, &status, &id, &captured, &deps, &data, &n);
  // DIAG-DAG: graph-edges.cu:[[@LINE-3]]:34: error: cannot initialize a parameter of type 'CUstreamCaptureStatus *'
  cudaGraphEdgeData edge[4];
  cudaGraphGetEdges_v2(g, nodes, nodes, edge, &n);
  // DIAG-DAG: graph-edges.cu:[[@LINE-1]]:3: error: 'cudaGraphGetEdges_v2' was removed in CUDA 13
  // FIX: cudaGraphGetEdges(g, nodes, nodes, edge, &n);
  // DIAG-DAG: graph-edges.cu:[[@LINE-3]]:41: error: cannot initialize a parameter of type 'CUgraphEdgeData *'
  int semaphores = 0;
  cudaDeviceGetAttribute(&semaphores, cudaDevAttrMaxTimelineSemaphoreInteropSupported, 0);
  // DIAG-DAG: graph-edges.cu:[[@LINE-1]]:39: error: 'cudaDevAttrMaxTimelineSemaphoreInteropSupported' was removed in CUDA 13; use 'cudaDevAttrTimelineSemaphoreInteropSupported', the same attribute (114) under its current name [cuda13-removed-api]
  // FIX: cudaDeviceGetAttribute(&semaphores, cudaDevAttrTimelineSemaphoreInteropSupported, 0);
  cudaEvent_t e0, e1;
  float ms;
  cudaEventElapsedTime_v2(&ms, e0, e1);
  // DIAG-DAG: graph-edges.cu:[[@LINE-1]]:3: error: 'cudaEventElapsedTime_v2' was removed in CUDA 13; use 'cudaEventElapsedTime', which takes the same arguments since CUDA 13
  // FIX: cudaEventElapsedTime(&ms, e0, e1);
  // The old form that compiles against the new one: the literal 0 count
  // would be the null edge data and the flags the count.
  cudaStreamUpdateCaptureDependencies(s, nullptr, 0, cudaStreamSetCaptureDependencies);
  // DIAG-DAG: graph-edges.cu:[[@LINE-1]]:3: error: 'cudaStreamUpdateCaptureDependencies' takes a 'const cudaGraphEdgeData *dependencyData' argument since CUDA 13
  // FIX: cudaStreamUpdateCaptureDependencies(s, nullptr, nullptr, 0, cudaStreamSetCaptureDependencies);
  // Already CUDA 13, with as many arguments as an old form: untouched.
  cudaGraphAddDependencies(g, &a, &b, nullptr, 1);
  // FIX: cudaGraphAddDependencies(g, &a, &b, nullptr, 1);
  cudaStreamGetCaptureInfo(s, &status, &id);
  // FIX: cudaStreamGetCaptureInfo(s, &status, &id);
  cudaStreamGetCaptureInfo(s, &status, &id, &captured, &deps, &data);
  // FIX: cudaStreamGetCaptureInfo(s, &status, &id, &captured, &deps, &data);
  cudaStreamUpdateCaptureDependencies(s, nodes, nullptr, 2);
  // FIX: cudaStreamUpdateCaptureDependencies(s, nodes, nullptr, 2);
  cudaStreamUpdateCaptureDependencies(s, nodes, 0, n);
  // FIX: cudaStreamUpdateCaptureDependencies(s, nodes, 0, n);
#ifdef IN_MACRO
#define ADD_EDGE(g, x, y) cudaGraphAddDependencies(g, &x, &y, 1)
  ADD_EDGE(g, a, b);
  // MACRO: graph-edges.cu:[[@LINE-1]]:3: error: 'cudaGraphAddDependencies' takes a 'const cudaGraphEdgeData *edgeData' argument since CUDA 13
  // MACRO: note: not rewritten: the arguments are written inside a macro
#endif
  return semaphores + int(ms);
}

// BEFORE: error
// DIAG: graph-edges.cu: 17 error(s), 0 warning(s) for sm_90; 17 fixed; nvcc compiles the patched file for sm_90
