// Host code with OpenMP: #include <omp.h> and #pragma omp. Clang 22 ships no
// omp.h; the frontend maps the host GCC's (what nvcc's host compiler uses),
// with or without -fopenmp (which reaches the host side only, as nvcc's
// -Xcompiler -fopenmp does). The file nvcc compiles ports with exit 0.
// REQUIRES: cuda
// RUN: %nvcc -arch=sm_100 -Xcompiler -fopenmp -c %s -o %t.o
// RUN: forge-port %s --to sm_100 > %t.log 2>&1
// RUN: FileCheck %s --input-file=%t.log --implicit-check-not='error:' --implicit-check-not='could not parse'
// RUN: forge-port %s --to sm_100 -- -fopenmp > %t.omp.log 2>&1
// RUN: FileCheck %s --input-file=%t.omp.log --implicit-check-not='error:' --implicit-check-not='could not parse'
// From a compile database whose nvcc command has -Xcompiler -fopenmp:
// RUN: rm -rf %t.db && mkdir -p %t.db && cp %s %t.db/omp.cu
// RUN: echo '[{"directory": "%t.db", "file": "omp.cu", "command": "nvcc -arch=sm_90 -Xcompiler -fopenmp -c omp.cu -o omp.o"}]' > %t.db/compile_commands.json
// RUN: forge-port -p %t.db %t.db/omp.cu --to sm_100 > %t.db.log 2>&1
// RUN: FileCheck %s --check-prefix=DB --input-file=%t.db.log --implicit-check-not='error:' --implicit-check-not='could not parse'

#include <cstdio>
#include <omp.h>
#include <cuda_runtime.h>

__global__ void scale(float *x, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    x[i] *= a;
}

void cpuScale(float *x, float a, int n) {
#pragma omp parallel for
  for (int i = 0; i < n; i++)
    x[i] *= a;
}

int main() {
  float h[100];
  for (int i = 0; i < 100; i++)
    h[i] = float(i);
  cpuScale(h, 2.0f, 100);
  printf("%d threads, %f\n", omp_get_max_threads(), h[99]);
  return 0;
}

// CHECK: port-openmp.cu: 0 error(s), 0 warning(s) for sm_100; 0 fixed (use -o, -i or --diff to apply); nvcc compiles the file for sm_100
// DB: omp.cu: 0 error(s), 0 warning(s) for sm_100; 0 fixed (use -o, -i or --diff to apply); nvcc compiles the file for sm_100
