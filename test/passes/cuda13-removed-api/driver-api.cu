// CUDA 13's cuda.h maps the plain driver names to new signatures (`#define
// cuCtxCreate cuCtxCreate_v4`, `#define cuMemAdvise cuMemAdvise_v2`,
// `#define cuGraphAddDependencies cuGraphAddDependencies_v2`, ...;
// cudaTypedefs.h dates each form: PFN_cuCtxCreate_v12050,
// PFN_cuMemAdvise_v12020, PFN_cuGraphAddDependencies_v12030, ...), and CUDA
// 12.0 had mapped cuGetProcAddress to _v2, cuGraphInstantiate to
// cuGraphInstantiateWithFlags and cuGraphExecUpdate to _v2. An old-form call is Clang's "no
// matching function for call to 'cuCtxCreate_v4'", which the pass reports
// instead, under the name the code wrote, with the rewrite the runtime API's
// calls get: a null ctxCreateParams, a CUmemLocation for the device number
// (and the prefetch's flags), null edge data, a null symbolStatus, no null
// failIdx, flags 0 for a null error node and log; CUDA 11's three-argument
// cuStreamGetCaptureInfo gets null graph, dependency, edge-data and count
// outputs, and cuGraphExecUpdate's two outputs (null or '&x') are stored
// from a CUgraphExecUpdateResultInfo by a lambda, as cuda_runtime.h's own
// overload of the old runtime form does. The output compiles with nvcc.
// REQUIRES: cuda
// RUN: not %nvcc -arch=sm_90 -c %s -o %t.orig.o 2>&1 | FileCheck %s --check-prefix=BEFORE
// RUN: forge-port port --checks=cuda13-removed-api --to sm_90 %s -o %t.cu > %t.log 2>&1
// RUN: FileCheck %s --check-prefix=DIAG --implicit-check-not='no matching function' --implicit-check-not='error:' --input-file=%t.log
// RUN: FileCheck %s --check-prefix=FIX --match-full-lines --input-file=%t.cu
// RUN: %nvcc -arch=sm_90 -c %t.cu -o %t.o
// The per-thread default stream names (cuMemPrefetchAsync_v2_ptsz, ...).
// RUN: forge-port port --checks=cuda13-removed-api --to sm_90 %s -o %t.ptsz.cu -- -DCUDA_API_PER_THREAD_DEFAULT_STREAM 2>&1 | FileCheck %s --check-prefix=PTSZ
// RUN: diff %t.cu %t.ptsz.cu
// Calls in neither form, or whose rewrite would change the program.
// RUN: not forge-port port --checks=cuda13-removed-api --to sm_90 --no-validate %s -- -DNO_FIX 2>&1 | FileCheck %s --check-prefix=NOFIX

#include <cuda.h>

#define CHECK(x)                                                               \
  do {                                                                         \
    if ((x) != CUDA_SUCCESS)                                                   \
      return 1;                                                                \
  } while (0)

int nextDevice();

int driver(CUdevice dev, CUdeviceptr p, size_t n, CUstream s, CUgraph g, CUgraphNode a,
           CUgraphNode b) {
  CUcontext ctx;
  CHECK(cuCtxCreate(&ctx, 0, dev));
  // DIAG-DAG: driver-api.cu:[[@LINE-1]]:9: error: 'cuCtxCreate' takes a 'CUctxCreateParams *ctxCreateParams' argument since CUDA 13 (the form CUDA 12.5 named 'cuCtxCreate_v4'); nullptr there creates a plain context, as the old form did [cuda13-removed-api]
  // FIX: CHECK(cuCtxCreate(&ctx, nullptr, 0, dev));
  cuMemAdvise(p, n, CU_MEM_ADVISE_SET_READ_MOSTLY, dev);
  // DIAG-DAG: driver-api.cu:[[@LINE-1]]:3: error: 'cuMemAdvise' takes a CUmemLocation instead of a device number since CUDA 13; pass CUmemLocation{CU_MEM_LOCATION_TYPE_DEVICE, device} (CU_MEM_LOCATION_TYPE_HOST for CU_DEVICE_CPU) [cuda13-removed-api]
  // FIX: cuMemAdvise(p, n, CU_MEM_ADVISE_SET_READ_MOSTLY, CUmemLocation{(dev) == CU_DEVICE_CPU ? CU_MEM_LOCATION_TYPE_HOST : CU_MEM_LOCATION_TYPE_DEVICE, dev});
  cuMemAdvise(p, n, CU_MEM_ADVISE_SET_PREFERRED_LOCATION, CU_DEVICE_CPU);
  // DIAG-DAG: driver-api.cu:[[@LINE-1]]:3: error: 'cuMemAdvise' takes a CUmemLocation
  // FIX: cuMemAdvise(p, n, CU_MEM_ADVISE_SET_PREFERRED_LOCATION, CUmemLocation{CU_MEM_LOCATION_TYPE_HOST, 0});
  CHECK(cuMemPrefetchAsync(p, n, 0, s));
  // DIAG-DAG: driver-api.cu:[[@LINE-1]]:9: error: 'cuMemPrefetchAsync' takes a CUmemLocation instead of a device number since CUDA 13, and a flags argument after it; pass CUmemLocation{CU_MEM_LOCATION_TYPE_DEVICE, device} (CU_MEM_LOCATION_TYPE_HOST for CU_DEVICE_CPU) [cuda13-removed-api]
  // FIX: CHECK(cuMemPrefetchAsync(p, n, CUmemLocation{CU_MEM_LOCATION_TYPE_DEVICE, 0}, 0, s));
  // PTSZ-DAG: driver-api.cu:[[@LINE-3]]:9: error: 'cuMemPrefetchAsync' takes a CUmemLocation
  CHECK(cuGraphAddDependencies(g, &a, &b, 1));
  // DIAG-DAG: driver-api.cu:[[@LINE-1]]:9: error: 'cuGraphAddDependencies' takes a 'const CUgraphEdgeData *edgeData' argument since CUDA 13 (the form CUDA 12.3 named 'cuGraphAddDependencies_v2'); nullptr there means default edges, as the old form had [cuda13-removed-api]
  // FIX: CHECK(cuGraphAddDependencies(g, &a, &b, nullptr, 1));
  cuGraphRemoveDependencies(g, &a, &b, 1);
  // DIAG-DAG: driver-api.cu:[[@LINE-1]]:3: error: 'cuGraphRemoveDependencies' takes a 'const CUgraphEdgeData *edgeData' argument since CUDA 13
  // FIX: cuGraphRemoveDependencies(g, &a, &b, nullptr, 1);
  CUgraphNode nodes[4];
  size_t count = 4;
  cuGraphGetEdges(g, nullptr, nullptr, &count);
  // DIAG-DAG: driver-api.cu:[[@LINE-1]]:3: error: 'cuGraphGetEdges' takes a 'CUgraphEdgeData *edgeData' argument since CUDA 13
  // FIX: cuGraphGetEdges(g, nullptr, nullptr, nullptr, &count);
  cuGraphNodeGetDependencies(a, nodes, &count);
  // DIAG-DAG: driver-api.cu:[[@LINE-1]]:3: error: 'cuGraphNodeGetDependencies' takes a 'CUgraphEdgeData *edgeData' argument since CUDA 13
  // FIX: cuGraphNodeGetDependencies(a, nodes, nullptr, &count);
  cuGraphNodeGetDependentNodes(a, nodes, &count);
  // DIAG-DAG: driver-api.cu:[[@LINE-1]]:3: error: 'cuGraphNodeGetDependentNodes' takes a 'CUgraphEdgeData *edgeData' argument since CUDA 13
  // FIX: cuGraphNodeGetDependentNodes(a, nodes, nullptr, &count);
  cuStreamUpdateCaptureDependencies(s, nodes, 2, CU_STREAM_SET_CAPTURE_DEPENDENCIES);
  // DIAG-DAG: driver-api.cu:[[@LINE-1]]:3: error: 'cuStreamUpdateCaptureDependencies' takes a 'const CUgraphEdgeData *dependencyData' argument since CUDA 13
  // FIX: cuStreamUpdateCaptureDependencies(s, nodes, nullptr, 2, CU_STREAM_SET_CAPTURE_DEPENDENCIES);
  CUgraphNodeParams params = {};
  params.type = CU_GRAPH_NODE_TYPE_EMPTY;
  cuGraphAddNode(&b, g, &a, 1, &params);
  // DIAG-DAG: driver-api.cu:[[@LINE-1]]:3: error: 'cuGraphAddNode' takes a 'const CUgraphEdgeData *dependencyData' argument since CUDA 13
  // FIX: cuGraphAddNode(&b, g, &a, nullptr, 1, &params);
  CUstreamCaptureStatus status;
  cuuint64_t id;
  CUgraph captured;
  const CUgraphNode *deps;
  CHECK(cuStreamGetCaptureInfo(s, &status, &id, &captured, &deps, &count));
  // DIAG-DAG: driver-api.cu:[[@LINE-1]]:9: error: 'cuStreamGetCaptureInfo' takes a 'const CUgraphEdgeData **edgeData_out' argument before the dependency count since CUDA 13 (the form CUDA 12.3 named 'cuStreamGetCaptureInfo_v3'); nullptr there asks for no edge data, as the old form did [cuda13-removed-api]
  // FIX: CHECK(cuStreamGetCaptureInfo(s, &status, &id, &captured, &deps, nullptr, &count));
  // PTSZ-DAG: driver-api.cu:[[@LINE-3]]:9: error: 'cuStreamGetCaptureInfo' takes a 'const CUgraphEdgeData **edgeData_out'
  CHECK(cuStreamGetCaptureInfo(s, &status, &id));
  // DIAG-DAG: driver-api.cu:[[@LINE-1]]:9: error: 'cuStreamGetCaptureInfo' takes graph_out, dependencies_out, edgeData_out and numDependencies_out after id_out since CUDA 13 (CUDA 11's form returned the status and id only); nullptr there asks for nothing, as the old form returned [cuda13-removed-api]
  // FIX: CHECK(cuStreamGetCaptureInfo(s, &status, &id, nullptr, nullptr, nullptr, nullptr));
  // PTSZ-DAG: driver-api.cu:[[@LINE-3]]:9: error: 'cuStreamGetCaptureInfo' takes graph_out
  void *fn = nullptr;
  cuGetProcAddress("cuMemAlloc", &fn, 12000, CU_GET_PROC_ADDRESS_DEFAULT);
  // DIAG-DAG: driver-api.cu:[[@LINE-1]]:3: error: 'cuGetProcAddress' takes a 'CUdriverProcAddressQueryResult *symbolStatus' argument since CUDA 12.0 (cuGetProcAddress_v2); nullptr there asks for no status, as the old form returned none [cuda13-removed-api]
  // FIX: cuGetProcAddress("cuMemAlloc", &fn, 12000, CU_GET_PROC_ADDRESS_DEFAULT, nullptr);
  CUdeviceptr dsts[2], srcs[2];
  size_t sizes[2] = {n, n}, idxs[1] = {0};
  CUmemcpyAttributes attrs[1] = {};
  CHECK(cuMemcpyBatchAsync(dsts, srcs, sizes, 2, attrs, idxs, 1, nullptr, s));
  // DIAG-DAG: driver-api.cu:[[@LINE-1]]:9: error: 'cuMemcpyBatchAsync' has no 'size_t *failIdx' argument since CUDA 13 (CUDA 12.8 had it before the stream) [cuda13-removed-api]
  // FIX: CHECK(cuMemcpyBatchAsync(dsts, srcs, sizes, 2, attrs, idxs, 1, s));
  // PTSZ-DAG: driver-api.cu:[[@LINE-3]]:9: error: 'cuMemcpyBatchAsync' has no 'size_t *failIdx'
  CUDA_MEMCPY3D_BATCH_OP ops[2] = {};
  cuMemcpy3DBatchAsync(2, ops, NULL, 0, s);
  // DIAG-DAG: driver-api.cu:[[@LINE-1]]:3: error: 'cuMemcpy3DBatchAsync' has no 'size_t *failIdx' argument since CUDA 13 (CUDA 12.8 had it after the operations) [cuda13-removed-api]
  // FIX: cuMemcpy3DBatchAsync(2, ops, 0, s);
  CUgraphExec exec;
  CHECK(cuGraphInstantiate(&exec, g, NULL, NULL, 0));
  // DIAG-DAG: driver-api.cu:[[@LINE-1]]:9: error: 'cuGraphInstantiate' takes (phGraphExec, hGraph, flags) since CUDA 12.0 (cuda.h maps it to cuGraphInstantiateWithFlags); the error node and the log buffer are gone [cuda13-removed-api]
  // FIX: CHECK(cuGraphInstantiate(&exec, g, 0));
  CUgraphNode failedAt;
  CUgraphExecUpdateResult result;
  CHECK(cuGraphExecUpdate(exec, g, &failedAt, &result));
  // DIAG-DAG: driver-api.cu:[[@LINE-1]]:9: error: 'cuGraphExecUpdate' takes a 'CUgraphExecUpdateResultInfo *resultInfo' instead of the error node and result outputs since CUDA 12.0 (cuda.h maps it to cuGraphExecUpdate_v2) [cuda13-removed-api]
  // FIX: CHECK([&] { CUgraphExecUpdateResultInfo info_{}; CUresult status_ = cuGraphExecUpdate(exec, g, &info_); failedAt = info_.errorNode; result = info_.result; return status_; }());
  CUresult updated = cuGraphExecUpdate(exec, g, NULL, &result);
  // DIAG-DAG: driver-api.cu:[[@LINE-1]]:22: error: 'cuGraphExecUpdate' takes a 'CUgraphExecUpdateResultInfo *resultInfo'
  // FIX: CUresult updated = [&] { CUgraphExecUpdateResultInfo info_{}; CUresult status_ = cuGraphExecUpdate(exec, g, &info_); result = info_.result; return status_; }();
  (void)updated;
  // CUDA 12's names of the old forms, written out (cuda.h of 13.0 declares
  // them only for __CUDA_API_VERSION_INTERNAL).
  cuCtxCreate_v2(&ctx, CU_CTX_SCHED_AUTO, dev);
  // DIAG-DAG: driver-api.cu:[[@LINE-1]]:3: error: 'cuCtxCreate_v2' was removed from cuda.h in CUDA 13; use 'cuCtxCreate', which takes a 'CUctxCreateParams *ctxCreateParams' argument before the flags (nullptr: a plain context, as before) [cuda13-removed-api]
  // FIX: cuCtxCreate(&ctx, nullptr, CU_CTX_SCHED_AUTO, dev);
  cuStreamGetCaptureInfo_v2(s, &status, &id, &captured, &deps, &count);
  // DIAG-DAG: driver-api.cu:[[@LINE-1]]:3: error: 'cuStreamGetCaptureInfo_v2' was removed from cuda.h in CUDA 13; use 'cuStreamGetCaptureInfo', which takes a 'const CUgraphEdgeData **edgeData_out' argument before the dependency count (nullptr: no edge data, as before) [cuda13-removed-api]
  // FIX: cuStreamGetCaptureInfo(s, &status, &id, &captured, &deps, nullptr, &count);
  // Clang's guess for the name is the runtime's cudaStreamGetCaptureInfo,
  // whose types differ: its error is printed, not counted.
  // DIAG-DAG: driver-api.cu:[[@LINE-5]]:32: error: cannot initialize a parameter of type 'enum cudaStreamCaptureStatus *'
  // Already CUDA 13: untouched.
  CUmemLocation here = {CU_MEM_LOCATION_TYPE_DEVICE, dev};
  cuMemPrefetchAsync(p, n, here, 0, s);
  // FIX: cuMemPrefetchAsync(p, n, here, 0, s);
  cuGraphAddDependencies(g, &a, &b, nullptr, 1);
  // FIX: cuGraphAddDependencies(g, &a, &b, nullptr, 1);
  cuCtxCreate(&ctx, nullptr, 0, dev);
  // FIX: cuCtxCreate(&ctx, nullptr, 0, dev);
#ifdef NO_FIX
  cuMemPrefetchAsync(p, n, nextDevice(), s);
  // NOFIX: driver-api.cu:[[@LINE-1]]:3: error: 'cuMemPrefetchAsync' takes a CUmemLocation
  // NOFIX: note: not rewritten: the device argument has side effects; the location needs it twice (device or CU_DEVICE_CPU)
  cuStreamGetCaptureInfo(s, &status, &id, &captured);
  // NOFIX: driver-api.cu:[[@LINE-1]]:3: error: 'cuStreamGetCaptureInfo' takes a 'const CUgraphEdgeData **edgeData_out'
  // NOFIX: note: not rewritten: the call has neither the old form cuStreamGetCaptureInfo(stream, status, id, graph, dependencies, count) nor CUDA 13's; see its declaration in cuda.h
  size_t failed;
  cuMemcpy3DBatchAsync(2, ops, &failed, 0, s);
  // NOFIX: driver-api.cu:[[@LINE-1]]:3: error: 'cuMemcpy3DBatchAsync' has no 'size_t *failIdx'
  // NOFIX: note: not rewritten: failIdx is not null, and CUDA 13 does not say which copy failed; drop it and find the failed copy by hand
  char log[256];
  cuGraphInstantiate(&exec, g, &failedAt, log, sizeof log);
  // NOFIX: driver-api.cu:[[@LINE-1]]:3: error: 'cuGraphInstantiate' takes (phGraphExec, hGraph, flags) since CUDA 12.0
  // NOFIX: note: not rewritten: the code passes an error node or a log buffer; since CUDA 12.0 cuGraphInstantiateWithParams returns the error node (hErrNode_out), and no call a log
  CUgraphNode *where = &failedAt;
  cuGraphExecUpdate(exec, g, where, &result);
  // NOFIX: driver-api.cu:[[@LINE-1]]:3: error: 'cuGraphExecUpdate' takes a 'CUgraphExecUpdateResultInfo *resultInfo' instead of the error node and result outputs since CUDA 12.0 (cuda.h maps it to cuGraphExecUpdate_v2) [cuda13-removed-api]
  // NOFIX: note: not rewritten: an output is neither null nor the address of a variable ('&x'); declare a CUgraphExecUpdateResultInfo, pass its address, and read its 'result' and 'errorNode' where the code read the two outputs
  // Reported from Clang's error for the undeclared name, after the calls.
  CUexecAffinityParam affinity = {};
  cuCtxCreate_v3(&ctx, &affinity, 1, 0, dev);
  // NOFIX: driver-api.cu:[[@LINE-1]]:3: error: 'cuCtxCreate_v3' was removed in CUDA 13; pass its execution-affinity parameters to cuCtxCreate in a CUctxCreateParams (execAffinityParams, numExecAffinityParams) [cuda13-removed-api]
  // NOFIX: note: not rewritten: the parameters go into a struct the code must declare
#endif
  return 0;
}

// BEFORE: error
// DIAG: driver-api.cu: 21 error(s), 0 warning(s) for sm_90; 21 fixed; nvcc compiles the patched file for sm_90
// PTSZ: driver-api.cu: 21 error(s), 0 warning(s) for sm_90; 21 fixed; nvcc compiles the patched file for sm_90
// NOFIX: driver-api.cu: 28 error(s) (27 from the passes, 1 from Clang's parse), 0 warning(s) for sm_90; 21 fixed (use -o, -i or --diff to apply)
