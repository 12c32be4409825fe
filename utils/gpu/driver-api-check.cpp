// driver-api-check: runs, on a GPU, the CUDA 13 forms that the
// cuda13-removed-api pass writes for the driver API's old calls, and prints
// PASS or FAIL for each (docs/passes/cuda13-removed-api.md, [G1]).
//
//   nvcc -arch=sm_90 -o driver-api-check utils/gpu/driver-api-check.cpp \
//        -L/usr/local/cuda/lib64/stubs -lcuda     # the stub links; the driver runs it
//   ./driver-api-check            # exit status 0: every check passed
//
// Only the driver API (cuda.h) and no runtime call: the program creates its
// own contexts. It links against libcuda.so (the stub in
// /usr/local/cuda/lib64/stubs builds it; the driver's runs it).
#include <cuda.h>
#include <cstdio>
#include <cstring>

namespace {
int Failures = 0;

void report(const char *What, bool Ok, const char *Detail = "") {
  std::printf("%s %s%s%s\n", Ok ? "PASS" : "FAIL", What, *Detail ? ": " : "", Detail);
  if (!Ok)
    ++Failures;
}

const char *errorName(CUresult R) {
  const char *Name = nullptr;
  return cuGetErrorName(R, &Name) == CUDA_SUCCESS && Name ? Name : "unknown error";
}

bool ok(const char *What, CUresult R) {
  if (R != CUDA_SUCCESS)
    report(What, false, errorName(R));
  return R == CUDA_SUCCESS;
}

// What a context is: its flags, device, SM count (execution affinity) and
// stack limit, read with the context current.
struct ContextFacts {
  unsigned Flags = 0;
  CUdevice Device = -1;
  unsigned SmCount = 0;
  size_t Stack = 0;
};

bool factsOf(CUcontext Ctx, ContextFacts &F) {
  if (!ok("cuCtxSetCurrent", cuCtxSetCurrent(Ctx)) || !ok("cuCtxGetFlags", cuCtxGetFlags(&F.Flags)) ||
      !ok("cuCtxGetDevice", cuCtxGetDevice(&F.Device)) ||
      !ok("cuCtxGetLimit", cuCtxGetLimit(&F.Stack, CU_LIMIT_STACK_SIZE)))
    return false;
  CUexecAffinityParam Affinity;
  std::memset(&Affinity, 0, sizeof Affinity);
  CUresult R = cuCtxGetExecAffinity(&Affinity, CU_EXEC_AFFINITY_TYPE_SM_COUNT);
  if (R == CUDA_SUCCESS)
    F.SmCount = Affinity.param.smCount.val;
  else if (R != CUDA_ERROR_UNSUPPORTED_EXEC_AFFINITY)
    return ok("cuCtxGetExecAffinity", R);
  return true;
}

// cuCtxCreate(&ctx, flags, dev) -> cuCtxCreate(&ctx, nullptr, flags, dev):
// the same context as the old entry point (cuCtxCreate_v2, CUDA 3.2)
// creates, looked up with cuGetProcAddress for version 3020.
void checkCtxCreate(CUdevice Dev) {
  const unsigned Flags = CU_CTX_SCHED_BLOCKING_SYNC;
  CUcontext New = nullptr, Old = nullptr;
  if (!ok("cuCtxCreate(&ctx, nullptr, flags, dev)", cuCtxCreate(&New, nullptr, Flags, Dev)))
    return;
  report("cuCtxCreate(&ctx, nullptr, flags, dev)", true);
  using OldCreate = CUresult (*)(CUcontext *, unsigned, CUdevice);
  void *Fn = nullptr;
  CUdriverProcAddressQueryResult Found;
  CUresult R = cuGetProcAddress("cuCtxCreate", &Fn, 3020, CU_GET_PROC_ADDRESS_DEFAULT, &Found);
  if (R != CUDA_SUCCESS || !Fn || Found != CU_GET_PROC_ADDRESS_SUCCESS) {
    report("cuGetProcAddress(\"cuCtxCreate\", 3020): the old entry point", false,
           R != CUDA_SUCCESS ? errorName(R) : "not found");
    cuCtxDestroy(New);
    return;
  }
  if (ok("old cuCtxCreate(&ctx, flags, dev)", reinterpret_cast<OldCreate>(Fn)(&Old, Flags, Dev))) {
    ContextFacts A, B;
    if (factsOf(New, A) && factsOf(Old, B)) {
      char Detail[256];
      std::snprintf(Detail, sizeof Detail,
                    "flags 0x%x/0x%x, device %d/%d, SM count %u/%u, stack %zu/%zu (new/old)",
                    A.Flags, B.Flags, A.Device, B.Device, A.SmCount, B.SmCount, A.Stack, B.Stack);
      report("null ctxCreateParams gives the old call's context",
             A.Flags == B.Flags && A.Device == B.Device && A.SmCount == B.SmCount &&
                 A.Stack == B.Stack && (A.Flags & CU_CTX_SCHED_MASK) == Flags,
             Detail);
    }
    cuCtxDestroy(Old);
  }
  cuCtxDestroy(New);
}

// cuMemAdvise(p, n, advice, dev) and cuMemPrefetchAsync(p, n, dev, s) with
// the CUmemLocation the pass writes for dev and for CU_DEVICE_CPU.
void checkMemLocation(CUdevice Dev, CUstream S) {
  int Managed = 0, Concurrent = 0;
  cuDeviceGetAttribute(&Managed, CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY, Dev);
  cuDeviceGetAttribute(&Concurrent, CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS, Dev);
  if (!Managed || !Concurrent) {
    report("cuMemAdvise/cuMemPrefetchAsync", false, "the device has no concurrent managed access");
    return;
  }
  const size_t Bytes = 1 << 20;
  CUdeviceptr P = 0;
  if (!ok("cuMemAllocManaged", cuMemAllocManaged(&P, Bytes, CU_MEM_ATTACH_GLOBAL)))
    return;
  CUdevice Host = CU_DEVICE_CPU;
  bool Advised =
      ok("cuMemAdvise(..., CUmemLocation{HOST, 0})",
         cuMemAdvise(P, Bytes, CU_MEM_ADVISE_SET_PREFERRED_LOCATION,
                     CUmemLocation{(Host) == CU_DEVICE_CPU ? CU_MEM_LOCATION_TYPE_HOST
                                                           : CU_MEM_LOCATION_TYPE_DEVICE,
                                   Host}));
  if (Advised) {
    int Preferred = -2;
    CUresult R = cuMemRangeGetAttribute(&Preferred, sizeof Preferred,
                                        CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION, P, Bytes);
    char Detail[64];
    std::snprintf(Detail, sizeof Detail, "preferred location %d", Preferred);
    report("cuMemAdvise(..., CUmemLocation{HOST, 0}) sets the host as preferred",
           R == CUDA_SUCCESS && Preferred == CU_DEVICE_CPU, Detail);
  }
  if (ok("cuMemAdvise(..., CUmemLocation{DEVICE, dev})",
         cuMemAdvise(P, Bytes, CU_MEM_ADVISE_SET_PREFERRED_LOCATION,
                     CUmemLocation{CU_MEM_LOCATION_TYPE_DEVICE, Dev})))
    report("cuMemAdvise(..., CUmemLocation{DEVICE, dev})", true);
  if (ok("cuMemPrefetchAsync(p, n, CUmemLocation{DEVICE, dev}, 0, s)",
         cuMemPrefetchAsync(P, Bytes, CUmemLocation{CU_MEM_LOCATION_TYPE_DEVICE, Dev}, 0, S)) &&
      ok("cuStreamSynchronize", cuStreamSynchronize(S))) {
    int Last = -2;
    CUresult R = cuMemRangeGetAttribute(&Last, sizeof Last,
                                        CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION, P, Bytes);
    char Detail[64];
    std::snprintf(Detail, sizeof Detail, "last prefetch location %d", Last);
    report("cuMemPrefetchAsync(p, n, CUmemLocation{DEVICE, dev}, 0, s) prefetches to dev",
           R == CUDA_SUCCESS && Last == Dev, Detail);
  }
  if (ok("cuMemPrefetchAsync(p, n, CUmemLocation{HOST, 0}, 0, s)",
         cuMemPrefetchAsync(P, Bytes, CUmemLocation{CU_MEM_LOCATION_TYPE_HOST, 0}, 0, S)) &&
      ok("cuStreamSynchronize", cuStreamSynchronize(S))) {
    int Last = -2;
    CUresult R = cuMemRangeGetAttribute(&Last, sizeof Last,
                                        CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION, P, Bytes);
    char Detail[64];
    std::snprintf(Detail, sizeof Detail, "last prefetch location %d", Last);
    report("cuMemPrefetchAsync(p, n, CUmemLocation{HOST, 0}, 0, s) prefetches to the host",
           R == CUDA_SUCCESS && Last == CU_DEVICE_CPU, Detail);
  }
  cuMemFree(P);
}

// cuGetProcAddress(sym, &fn, version, flags) -> ..., nullptr).
void checkGetProcAddress() {
  void *Fn = nullptr;
  CUresult R = cuGetProcAddress("cuMemAlloc", &Fn, 12000, CU_GET_PROC_ADDRESS_DEFAULT, nullptr);
  report("cuGetProcAddress(\"cuMemAlloc\", &fn, 12000, DEFAULT, nullptr)",
         R == CUDA_SUCCESS && Fn != nullptr, R == CUDA_SUCCESS ? "" : errorName(R));
}

// The graph calls: cuGraphInstantiate(&exec, g, NULL, NULL, 0) ->
// cuGraphInstantiate(&exec, g, 0); the edge-data calls with null edge
// data; cuGraphExecUpdate's outputs from a CUgraphExecUpdateResultInfo;
// cuStreamGetCaptureInfo's old forms with a null edgeData_out or null
// trailing outputs.
void checkGraphs(CUstream S) {
  CUgraph G = nullptr;
  if (!ok("cuGraphCreate", cuGraphCreate(&G, 0)))
    return;
  CUgraphNode A = nullptr, B = nullptr;
  bool Added = ok("cuGraphAddEmptyNode", cuGraphAddEmptyNode(&A, G, nullptr, 0)) &&
               ok("cuGraphAddEmptyNode", cuGraphAddEmptyNode(&B, G, nullptr, 0));
  if (Added && ok("cuGraphAddDependencies(g, &a, &b, nullptr, 1)",
                  cuGraphAddDependencies(G, &A, &B, nullptr, 1))) {
    size_t Edges = 0;
    CUresult R = cuGraphGetEdges(G, nullptr, nullptr, nullptr, &Edges);
    report("cuGraphAddDependencies(g, &a, &b, nullptr, 1) adds one edge",
           R == CUDA_SUCCESS && Edges == 1);
    CUgraphNode Deps[2];
    size_t Count = 2;
    R = cuGraphNodeGetDependencies(B, Deps, nullptr, &Count);
    report("cuGraphNodeGetDependencies(node, deps, nullptr, &n)",
           R == CUDA_SUCCESS && Count == 1 && Deps[0] == A);
  }
  CUgraphExec Exec = nullptr;
  if (ok("cuGraphInstantiate(&exec, g, 0)", cuGraphInstantiate(&Exec, G, 0))) {
    report("cuGraphInstantiate(&exec, g, 0)", true);
    CUgraphNode FailedAt = A;
    CUgraphExecUpdateResult Result = CU_GRAPH_EXEC_UPDATE_ERROR;
    CUresult R = [&] {
      CUgraphExecUpdateResultInfo info_{};
      CUresult status_ = cuGraphExecUpdate(Exec, G, &info_);
      FailedAt = info_.errorNode;
      Result = info_.result;
      return status_;
    }();
    report("cuGraphExecUpdate through CUgraphExecUpdateResultInfo (same topology)",
           R == CUDA_SUCCESS && Result == CU_GRAPH_EXEC_UPDATE_SUCCESS && FailedAt == nullptr,
           R == CUDA_SUCCESS ? "" : errorName(R));
    cuGraphExecDestroy(Exec);
  }
  if (Added && ok("cuGraphRemoveDependencies(g, &a, &b, nullptr, 1)",
                  cuGraphRemoveDependencies(G, &A, &B, nullptr, 1))) {
    size_t Edges = 5;
    CUresult R = cuGraphGetEdges(G, nullptr, nullptr, nullptr, &Edges);
    report("cuGraphRemoveDependencies(g, &a, &b, nullptr, 1) removes it",
           R == CUDA_SUCCESS && Edges == 0);
  }
  cuGraphDestroy(G);

  // Capture: the six-argument form with a null edgeData_out, and CUDA 11's
  // three-argument form with the four trailing outputs null.
  if (!ok("cuStreamBeginCapture", cuStreamBeginCapture(S, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL)))
    return;
  CUstreamCaptureStatus Status = CU_STREAM_CAPTURE_STATUS_NONE;
  cuuint64_t Id = 0;
  CUgraph Captured = nullptr;
  const CUgraphNode *Deps = nullptr;
  size_t Count = 99;
  CUresult R = cuStreamGetCaptureInfo(S, &Status, &Id, &Captured, &Deps, nullptr, &Count);
  report("cuStreamGetCaptureInfo(s, &st, &id, &g, &deps, nullptr, &n)",
         R == CUDA_SUCCESS && Status == CU_STREAM_CAPTURE_STATUS_ACTIVE && Captured && Count == 0,
         R == CUDA_SUCCESS ? "" : errorName(R));
  CUstreamCaptureStatus Status2 = CU_STREAM_CAPTURE_STATUS_NONE;
  cuuint64_t Id2 = 0;
  R = cuStreamGetCaptureInfo(S, &Status2, &Id2, nullptr, nullptr, nullptr, nullptr);
  report("cuStreamGetCaptureInfo(s, &st, &id, nullptr, nullptr, nullptr, nullptr)",
         R == CUDA_SUCCESS && Status2 == CU_STREAM_CAPTURE_STATUS_ACTIVE && Id2 == Id,
         R == CUDA_SUCCESS ? "" : errorName(R));
  CUgraph Done = nullptr;
  if (ok("cuStreamEndCapture", cuStreamEndCapture(S, &Done)))
    cuGraphDestroy(Done);
}
} // namespace

int main() {
  if (!ok("cuInit", cuInit(0)))
    return 1;
  CUdevice Dev;
  if (!ok("cuDeviceGet", cuDeviceGet(&Dev, 0)))
    return 1;
  char Name[256] = {};
  int Version = 0;
  cuDeviceGetName(Name, sizeof Name, Dev);
  cuDriverGetVersion(&Version);
  std::printf("device 0: %s, driver API %d\n", Name, Version);
  checkCtxCreate(Dev);
  CUcontext Ctx = nullptr;
  if (!ok("cuCtxCreate", cuCtxCreate(&Ctx, nullptr, 0, Dev)))
    return 1;
  CUstream S = nullptr;
  if (ok("cuStreamCreate", cuStreamCreate(&S, CU_STREAM_NON_BLOCKING))) {
    checkMemLocation(Dev, S);
    checkGetProcAddress();
    checkGraphs(S);
    cuStreamDestroy(S);
  }
  cuCtxDestroy(Ctx);
  std::printf("%s: %d check(s) failed\n", Failures ? "FAIL" : "PASS", Failures);
  return Failures ? 1 : 0;
}
