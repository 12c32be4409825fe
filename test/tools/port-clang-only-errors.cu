// Clang is stricter than nvcc here: a launch spelt `k << < g, b >> > (...)`
// (legacy code has it) is two parse errors for Clang, none for nvcc. The run
// degrades: it says so, still validates with nvcc, and exits as nvcc and the
// passes say (0: nvcc compiles it, no pass reports an error). The summary
// does not count what nvcc accepts as an error.
// REQUIRES: cuda
// RUN: %nvcc -arch=sm_100 -c %s -o %t.o
// RUN: forge-port %s --to sm_100 -o %t.cu > %t.log 2>&1
// RUN: FileCheck %s --input-file=%t.log
// RUN: cmp %s %t.cu
// Without nvcc's word the errors count, and the run fails.
// RUN: not forge-port %s --to sm_100 --no-validate 2>&1 | FileCheck %s --check-prefix=NOVAL
// With an nvcc error besides, the run fails and shows nvcc's error.
// RUN: not forge-port %s --to sm_100 -- -DBROKEN > %t.broken.log 2>&1
// RUN: FileCheck %s --check-prefix=BROKEN --input-file=%t.broken.log

#include <cstdio>

__device__ float twice(float v) { return __shfl_down_sync(0xffffffff, v, 1) * 2.0f; }

__global__ void fill(float *a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    a[i] = twice(1.0f);
}

void launch(float *a, int n) {
  fill << < (n + 127) / 128, 128 >> > (a, n);
#ifdef BROKEN
  undefined_function(a);
#endif
}

// CHECK: error: expected expression
// CHECK: forge-port: note: 2 error(s) in code Clang could not parse; findings there may be incomplete (nvcc compiles it)
// CHECK: port-clang-only-errors.cu: 0 error(s), 0 warning(s) for sm_100; 0 fixed; 2 error(s) in code Clang could not parse; nvcc compiles the file for sm_100

// NOVAL: forge-port: note: 2 error(s) in code Clang could not parse; findings there may be incomplete (not validated: each counts as an error)
// NOVAL: port-clang-only-errors.cu: 2 error(s) (0 from the passes, 2 from Clang's parse), 0 warning(s) for sm_100

// BROKEN: error: identifier "undefined_function" is undefined
// BROKEN: forge-port: error: {{.*}}port-clang-only-errors.cu: nvcc does not compile the file for sm_100
// BROKEN: forge-port: note: 3 error(s) in code Clang could not parse; findings there may be incomplete
// BROKEN: port-clang-only-errors.cu: 4 error(s) (0 from the passes, 3 from Clang's parse, 1 from nvcc), 0 warning(s) for sm_100
