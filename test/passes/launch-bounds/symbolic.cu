// REQUIRES: cuda
// The bound keeps the spec's name for the block size (a macro here) only
// when every launch in the file uses that name; one launch with a constant
// instead gives the largest number.
// RUN: forge-port propose %s --kernel named --rules=launch-bounds --spec %S/Inputs/named.json --apply -o %t.named.cu 2>/dev/null
// RUN: FileCheck %s --check-prefix=NAMED --match-full-lines --input-file=%t.named.cu
// RUN: %nvcc -arch=sm_90 -ptx %t.named.cu -o /dev/null
// RUN: forge-port propose %s --kernel mixed --rules=launch-bounds --spec %S/Inputs/mixed.json 2>/dev/null | FileCheck %s --check-prefix=MIXED

#ifndef BLOCK
#define BLOCK 256
#endif

__global__ void named(float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = 1.f;
}
// NAMED: __global__ void __launch_bounds__(BLOCK) named(float *y, int n) {

__global__ void mixed(float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = 2.f;
}

void run(float *y, int n) {
  named<<<(n + BLOCK - 1) / BLOCK, BLOCK>>>(y, n);
  named<<<(n + BLOCK - 1) / BLOCK, dim3(BLOCK)>>>(y, n);
  mixed<<<(n + BLOCK - 1) / BLOCK, BLOCK>>>(y, n);
  mixed<<<(n + 511) / 512, 512>>>(y, n);
}
// MIXED: # expert:launch-bounds: __launch_bounds__(512) from the block size 512
