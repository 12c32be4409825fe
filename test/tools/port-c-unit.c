// A plain C unit: nvcc hands a .c to the host compiler as C ('gcc -x c'),
// so forge-port parses it as C with the toolkit's include directories and
// no CUDA prelude, runs the host-side passes, and validates with nvcc -c.
// The removed and changed driver and runtime calls are found and fixed in
// C as in C++ (NULL, not nullptr, for cuCtxCreate's new argument); what
// only C accepts (malloc's void * assigned to an int *, a variable named
// 'class') parses. `list` finds no kernels in the result, as C has none.
// REQUIRES: cuda
// RUN: cp %s %t.c
// RUN: not forge-port %t.c --to sm_100 --no-validate > %t.report.log 2>&1
// RUN: FileCheck %s --input-file=%t.report.log --implicit-check-not='error:' --implicit-check-not='warning:'
// RUN: forge-port %t.c --to sm_100 -o %t.out.c > %t.fixed.log 2>&1
// RUN: FileCheck %s --check-prefix=FIXED --input-file=%t.fixed.log
// RUN: FileCheck %s --check-prefix=RESULT --input-file=%t.out.c
// RUN: %nvcc -c %t.out.c -o %t.o
// RUN: forge-port list %t.out.c 2>&1 | FileCheck %s --check-prefix=LIST
// RUN: forge-port list --format=json %t.out.c | FileCheck %s --check-prefix=JSON
// CHECK-NOT: could not parse
// CHECK: port-c-unit.c.tmp.c:[[@LINE+22]]:3: error: 'cuCtxCreate' takes a 'CUctxCreateParams *ctxCreateParams' argument since CUDA 13
// CHECK: port-c-unit.c.tmp.c:[[@LINE+23]]:10: error: 'cudaThreadSynchronize' was removed in CUDA 13
// CHECK: 2 error(s), 0 warning(s) for sm_100
// FIXED: 2 fixed
// FIXED-SAME: nvcc compiles the patched file for sm_100
// RESULT: cuCtxCreate(&ctx, NULL, 0, dev);
// RESULT: return cudaDeviceSynchronize() == cudaSuccess ? class : 1;
// LIST: 0 kernels, 0 launch sites
// LIST-NOT: parse error
// JSON: "errors": 0,
// JSON: "kernels": [],

#include <cuda.h>
#include <cuda_runtime_api.h>
#include <stdlib.h>

int run(CUdevice dev) {
  CUcontext ctx;
  int *p = malloc(4 * sizeof(int)); /* an error in C++: void * to int * */
  int class = p != NULL;            /* a keyword in C++ */
  if (cuInit(0) != CUDA_SUCCESS)
    return 1;
  cuCtxCreate(&ctx, 0, dev);
  free(p);
  return cudaThreadSynchronize() == cudaSuccess ? class : 1;
}
