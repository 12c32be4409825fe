// REQUIRES: cuda
// The block size of the constant launch in the file becomes the bound.
// RUN: forge-port propose %s --kernel scale --rules=launch-bounds --apply -o %t.cu 2>&1 \
// RUN:   | FileCheck %s --check-prefix=NOTE
// RUN: FileCheck %s --check-prefix=FIX --match-full-lines --input-file=%t.cu
// RUN: %nvcc -arch=sm_90 -ptx %t.cu -o - | FileCheck %s --check-prefix=PTX
// --block wins over nothing, and says so in the bound.
// RUN: forge-port propose %s --kernel scale --rules=launch-bounds --block 32,4 | FileCheck %s --check-prefix=BLOCK

__global__ void scale(float *y, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] *= a;
}
// FIX: __global__ void __launch_bounds__(128) scale(float *y, float a, int n) {

void run(float *y, int n) { scale<<<(n + 127) / 128, dim3(128)>>>(y, 2.f, n); }

// NOTE: forge-port: note: applied expert:launch-bounds: __launch_bounds__(128) from the block size 128
// PTX: .maxntid 128, 1, 1
// BLOCK: # expert:launch-bounds: __launch_bounds__(128) from the block size 128
