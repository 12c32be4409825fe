// -o FILE in another directory: a quoted include that resolves only beside
// the input is rewritten to name the same file from the output's directory,
// and nvcc checks the result where it is written, as a plain `nvcc OUT.cu`
// there would build it (it used to check it beside the input and say
// "compiles" for an output that did not).
// REQUIRES: cuda
// RUN: rm -rf %t && mkdir -p %t/out
// RUN: forge-port %s --to sm_90 -o %t/out/ported.cu 2> %t/err
// RUN: FileCheck %s --input-file=%t/err
// RUN: FileCheck %s --check-prefix=OUT --input-file=%t/out/ported.cu
// RUN: cd %t/out && %nvcc -arch=sm_90 -c ported.cu -o ported.o
#include <cuda_runtime.h>
#include "Inputs/elsewhere/kernel.cu"

int main() {
  float *d = nullptr;
  cudaMalloc(&d, 256 * sizeof(float));
  scale<<<1, 256>>>(d, 2.0f);
  cudaThreadSynchronize();
  return 0;
}
// CHECK: note: the quoted include Inputs/elsewhere/kernel.cu -> {{(\.\./)+}}test/tools/Inputs/elsewhere/kernel.cu so that the result builds where it is written
// CHECK: 1 error(s), 0 warning(s) for sm_90; 1 fixed; nvcc compiles the patched file for sm_90
// OUT: #include "{{(\.\./)+}}test/tools/Inputs/elsewhere/kernel.cu"
// OUT: cudaDeviceSynchronize();
