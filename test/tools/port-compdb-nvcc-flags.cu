// nvcc-only flags of a compile database entry reach nvcc's validation: a
// __device__ lambda needs --extended-lambda (ggml's CMake build passes
// -extended-lambda), a constexpr host function called from device code
// --expt-relaxed-constexpr. Clang needs neither; without them on nvcc's
// command line the file nvcc builds would fail validation.
// REQUIRES: cuda
// RUN: rm -rf %t.db && mkdir -p %t.db && cp %s %t.db/lam.cu
// RUN: %nvcc -arch=sm_100 -extended-lambda --expt-relaxed-constexpr -use_fast_math -c %t.db/lam.cu -o %t.o
// RUN: echo '[{"directory": "%t.db", "file": "lam.cu", "command": "nvcc -O3 --generate-code=arch=compute_80,code=[compute_80,sm_80] -use_fast_math -extended-lambda --expt-relaxed-constexpr -std=c++17 -x cu -c lam.cu -o lam.o"}]' > %t.db/compile_commands.json
// RUN: forge-port -p %t.db %t.db/lam.cu --to sm_100 > %t.log 2>&1
// RUN: FileCheck %s --input-file=%t.log --implicit-check-not='error:'
// CHECK: lam.cu: 0 error(s), 0 warning(s) for sm_100; {{.*}}nvcc compiles the file for sm_100

#include <cuda_runtime.h>

constexpr float half_of(float x) { return x * 0.5f; }

template <typename F>
__global__ void apply(float *x, int n, F f) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    x[i] = f(x[i]);
}

void run(float *x, int n, float a) {
  apply<<<(n + 255) / 256, 256>>>(x, n, [=] __device__(float v) { return half_of(v) * a; });
}
