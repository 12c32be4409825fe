// REQUIRES: cuda
// The spec's block size is the kernel's template parameter: the bound is
// written with its name, so it follows the tuned value.
// RUN: forge-port propose %s --kernel tiled --rules=launch-bounds --spec %S/Inputs/tiled.json --apply -o %t.cu 2>/dev/null
// RUN: FileCheck %s --check-prefix=FIX --match-full-lines --input-file=%t.cu
// RUN: %nvcc -arch=sm_90 -ptx %t.cu -o - | FileCheck %s --check-prefix=PTX

template <int TILE>
__global__ void tiled(float *y, int n) {
  int i = blockIdx.x * TILE + threadIdx.x;
  if (i < n)
    y[i] = 1.f;
}
// FIX: __global__ void __launch_bounds__(TILE) tiled(float *y, int n) {
template __global__ void tiled<256>(float *, int);
// PTX: .maxntid 256, 1, 1
