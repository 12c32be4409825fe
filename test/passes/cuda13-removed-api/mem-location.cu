// CUDA 13's cudaMemAdvise and cudaMemPrefetchAsync take a cudaMemLocation
// where CUDA 12 took a device number, and the prefetch a flags argument
// after it (cuda_runtime_api.h: cudaMemAdvise(devPtr, count, advice,
// location), cudaMemPrefetchAsync(devPtr, count, location, flags, stream)).
// A call in the old form is Clang's "no matching function", reported by the
// pass instead, as an error with the rewrite: a constant device becomes a
// device location, cudaCpuDeviceId the host, and a variable either, at run
// time. The output compiles with nvcc.
// REQUIRES: cuda
// RUN: not %nvcc -arch=sm_100 -c %s -o %t.orig.o 2>&1 | FileCheck %s --check-prefix=BEFORE
// RUN: forge-port port --checks=cuda13-removed-api --to sm_100 %s -o %t.cu > %t.log 2>&1
// RUN: FileCheck %s --check-prefix=DIAG --implicit-check-not='error:' --implicit-check-not='no matching function' --input-file=%t.log
// RUN: FileCheck %s --check-prefix=FIX --match-full-lines --input-file=%t.cu
// RUN: %nvcc -arch=sm_100 -c %t.cu -o %t.o
// A device argument with side effects is needed twice: no fix, a reason.
// RUN: not forge-port port --checks=cuda13-removed-api --to sm_100 %s -o %t.side.cu -- -DSIDE_EFFECT 2>&1 | FileCheck %s --check-prefix=SIDE

#include <cuda_runtime.h>

#define CHECK(x)                                                               \
  do {                                                                         \
    if ((x) != cudaSuccess)                                                    \
      return 1;                                                                \
  } while (0)

int nextDevice();

int managed(float *p, size_t n, int dev, cudaStream_t s) {
  CHECK(cudaMemAdvise(p, n, cudaMemAdviseSetReadMostly, dev));
  // DIAG-DAG: mem-location.cu:[[@LINE-1]]:9: error: 'cudaMemAdvise' takes a cudaMemLocation instead of a device number since CUDA 13; pass cudaMemLocation{cudaMemLocationTypeDevice, device} (cudaMemLocationTypeHost for cudaCpuDeviceId) [cuda13-removed-api]
  // FIX: CHECK(cudaMemAdvise(p, n, cudaMemAdviseSetReadMostly, cudaMemLocation{(dev) == cudaCpuDeviceId ? cudaMemLocationTypeHost : cudaMemLocationTypeDevice, dev}));
  cudaMemAdvise(p, n, cudaMemAdviseSetPreferredLocation, 0);
  // DIAG-DAG: mem-location.cu:[[@LINE-1]]:3: error: 'cudaMemAdvise' takes a cudaMemLocation
  // FIX: cudaMemAdvise(p, n, cudaMemAdviseSetPreferredLocation, cudaMemLocation{cudaMemLocationTypeDevice, 0});
  cudaMemAdvise(p, n, cudaMemAdviseSetAccessedBy, cudaCpuDeviceId);
  // DIAG-DAG: mem-location.cu:[[@LINE-1]]:3: error: 'cudaMemAdvise' takes a cudaMemLocation
  // FIX: cudaMemAdvise(p, n, cudaMemAdviseSetAccessedBy, cudaMemLocation{cudaMemLocationTypeHost, 0});
  cudaMemPrefetchAsync(p, n, dev, s);
  // DIAG-DAG: mem-location.cu:[[@LINE-1]]:3: error: 'cudaMemPrefetchAsync' takes a cudaMemLocation instead of a device number since CUDA 13, and a flags argument after it; pass cudaMemLocation{cudaMemLocationTypeDevice, device} (cudaMemLocationTypeHost for cudaCpuDeviceId) [cuda13-removed-api]
  // FIX: cudaMemPrefetchAsync(p, n, cudaMemLocation{(dev) == cudaCpuDeviceId ? cudaMemLocationTypeHost : cudaMemLocationTypeDevice, dev}, 0, s);
  cudaMemPrefetchAsync(p, n / 2, dev + 1);
  // DIAG-DAG: mem-location.cu:[[@LINE-1]]:3: error: 'cudaMemPrefetchAsync' takes a cudaMemLocation
  // FIX: cudaMemPrefetchAsync(p, n / 2, cudaMemLocation{(dev + 1) == cudaCpuDeviceId ? cudaMemLocationTypeHost : cudaMemLocationTypeDevice, dev + 1}, 0);
  CHECK(cudaMemPrefetchAsync(p, n, cudaCpuDeviceId, s));
  // DIAG-DAG: mem-location.cu:[[@LINE-1]]:9: error: 'cudaMemPrefetchAsync' takes a cudaMemLocation
  // FIX: CHECK(cudaMemPrefetchAsync(p, n, cudaMemLocation{cudaMemLocationTypeHost, 0}, 0, s));
#ifdef SIDE_EFFECT
  cudaMemPrefetchAsync(p, n, nextDevice(), s);
  // SIDE: mem-location.cu:[[@LINE-1]]:3: error: 'cudaMemPrefetchAsync' takes a cudaMemLocation
  // SIDE: note: not rewritten: the device argument has side effects; the location needs it twice (device or cudaCpuDeviceId)
#endif
  // Already CUDA 13: untouched.
  cudaMemLocation loc = {cudaMemLocationTypeDevice, dev};
  cudaMemPrefetchAsync(p, n, loc, 0, s);
  // FIX: cudaMemPrefetchAsync(p, n, loc, 0, s);
  return 0;
}

// BEFORE: error
// DIAG: mem-location.cu: 6 error(s), 0 warning(s) for sm_100; 6 fixed; nvcc compiles the patched file for sm_100
// SIDE: error: no suitable constructor exists to convert from "int" to "cudaMemLocation"
// SIDE: mem-location.cu: 9 error(s) (7 from the passes, 2 from nvcc), 0 warning(s) for sm_100; 6 fixed; nvcc does not compile the patched file for sm_100
