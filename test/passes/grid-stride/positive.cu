// REQUIRES: cuda
// 'if (i < n)' becomes a grid-stride loop with a 64-bit index; the spec may
// then cap the grid at FORGE_GRID_WAVES waves of full occupancy (132 SMs x
// 8 blocks of 256 threads on sm_90).
// RUN: forge-port propose %s --kernel scale --rules=grid-stride --spec %S/Inputs/scale.json --apply -o %t.cu 2>&1 \
// RUN:   | FileCheck %s --check-prefix=NOTE
// RUN: FileCheck %s --check-prefix=FIX --match-full-lines --input-file=%t.cu
// RUN: %nvcc -arch=sm_90 -ptx %t.cu -o %t.ptx
// RUN: %python %S/Inputs/back_edges.py %t.ptx | FileCheck %s --check-prefix=PTX

__global__ void scale(float *y, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float v = y[i];
    y[i] = a * v;
  }
}
// FIX:      __global__ void scale(float *y, float a, int n) {
// FIX-NEXT:   for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)blockDim.x * gridDim.x) {
// FIX-NEXT:     float v = y[i];
// FIX-NEXT:     y[i] = a * v;
// FIX-NEXT:   }
// FIX-NEXT: }

// NOTE: forge-port: note: applied expert:grid-stride: a grid-stride loop over 'i' instead of 'if (i < n)'
// NOTE: forge-port: note: grid-stride: spec: grid.x -> min(ceil_div(N, 256), 132 * FORGE_GRID_WAVES * 8)
// NOTE: forge-port: note: grid-stride: spec: new tunable FORGE_GRID_WAVES in {4, 1, 2, 8, 16, 32}
// NOTE: forge-port: note: grid-stride: spec: why: the grid-stride loop covers all n elements for any grid, so grid.x is capped at FORGE_GRID_WAVES waves of 132 SMs x 8 blocks of 256 threads: fewer blocks, fewer flushes

// The loop's back edge.
// PTX: back edge to $L__BB
