// A clean C unit (the driver API as CUDA 13 has it): exit 0 with no
// warning, validated by nvcc -c. The language standard is the host
// compiler's: a database entry's `-Xcompiler -std=c99` reaches the parse
// (C99 here, where __STDC_VERSION__ says so) and nvcc's host compiler, and
// nvcc's -std=c++17, which nvcc does not give gcc for a .c, is not C's.
// REQUIRES: cuda
// RUN: rm -rf %t.db && mkdir -p %t.db && cp %s %t.db/clean.c
// RUN: forge-port %t.db/clean.c --to sm_100 > %t.plain.log 2>&1
// RUN: FileCheck %s --input-file=%t.plain.log --implicit-check-not='error:' --implicit-check-not='warning:'
// RUN: forge-port %t.db/clean.c --to sm_100 -- -std=c++17 > %t.cxxstd.log 2>&1
// RUN: FileCheck %s --input-file=%t.cxxstd.log --implicit-check-not='error:' --implicit-check-not='warning:'
// RUN: echo '[{"directory": "%t.db", "file": "clean.c", "command": "nvcc -Xcompiler -std=c99 -DWANT_C99 -c clean.c -o clean.o"}]' > %t.db/compile_commands.json
// RUN: forge-port -p %t.db %t.db/clean.c --to sm_100 > %t.c99.log 2>&1
// RUN: FileCheck %s --input-file=%t.c99.log --implicit-check-not='error:' --implicit-check-not='warning:'
// RUN: not forge-port %t.db/clean.c --to sm_100 --no-validate -- -DWANT_C99 2>&1 | FileCheck %s --check-prefix=DEFAULT
// CHECK: clean.c: 0 error(s), 0 warning(s) for sm_100; {{.*}}nvcc compiles the file for sm_100
// DEFAULT: error: "the host compiler's default is not C99"

#if defined(WANT_C99) && __STDC_VERSION__ != 199901L
#error "the host compiler's default is not C99"
#endif
#ifdef __cplusplus
#error "a .c is C"
#endif
#ifdef __CUDACC__
#error "nvcc hands a .c to the host compiler: __CUDACC__ is not defined there"
#endif
#include <cuda.h>
#include <stdio.h>
#include <stdlib.h>

int main(void) {
  CUdevice dev;
  CUcontext ctx;
  int *count = malloc(sizeof(int));
  if (!count || cuInit(0) != CUDA_SUCCESS || cuDeviceGet(&dev, 0) != CUDA_SUCCESS)
    return 1;
  if (cuCtxCreate(&ctx, NULL, 0, dev) != CUDA_SUCCESS)
    return 1;
  cuDeviceGetCount(count);
  printf("%d device(s)\n", *count);
  free(count);
  cuCtxDestroy(ctx);
  return 0;
}
