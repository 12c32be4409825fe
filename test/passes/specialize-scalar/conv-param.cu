// REQUIRES: cuda
// PMPP's basic 2D convolution with the radius a parameter: the spec launches
// it with r = 2, so the body is copied with 'r' a constexpr 2 (the loops of
// 5 iterations unroll) and every other radius calls the original body,
// moved unchanged into a __noinline__ device function that takes the
// thread's indices as arguments (parameters named threadIdx and blockIdx
// shadow the builtins), so that stencil-register-rows can run it per row
// (test/passes/stencil-register-rows/fallback-emulated.cu). smem-stencil-tiling
// then stages a constant 20 x 20 tile in the copy, after the test of r (its
// coefficient loads would read past a smaller mask).
// RUN: forge-port propose %s --kernel conv2d_param --spec %S/Inputs/conv_param.json \
// RUN:   --rules=specialize-scalar --apply -o %t.cu 2>&1 | FileCheck %s --check-prefix=NOTE
// RUN: FileCheck %s --check-prefix=FIX --match-full-lines --input-file=%t.cu
// RUN: %nvcc -arch=sm_90 -c %t.cu -o %t.o
// RUN: forge-port propose %t.cu --kernel conv2d_param --spec %S/Inputs/conv_param.json \
// RUN:   --rules=smem-stencil-tiling --apply -o %t.tiled.cu 2>&1 | FileCheck %s --check-prefix=TILE
// RUN: FileCheck %s --check-prefix=TILED --input-file=%t.tiled.cu
// RUN: %nvcc -arch=sm_90 -c %t.tiled.cu -o %t.tiled.o
// A specialised kernel has nothing left to specialise.
// RUN: not forge-port propose %t.cu --kernel conv2d_param --spec %S/Inputs/conv_param.json \
// RUN:   --rules=specialize-scalar 2>&1 | FileCheck %s --check-prefix=AGAIN

__global__ void conv2d_param(const float *N, const float *F, float *P, int r, int width,
                             int height) {
  int outCol = blockIdx.x * blockDim.x + threadIdx.x;
  int outRow = blockIdx.y * blockDim.y + threadIdx.y;
  float Pvalue = 0.0f;
  for (int fRow = 0; fRow < 2 * r + 1; fRow++) {
    for (int fCol = 0; fCol < 2 * r + 1; fCol++) {
      int inRow = outRow - r + fRow;
      int inCol = outCol - r + fCol;
      if (inRow >= 0 && inRow < height && inCol >= 0 && inCol < width)
        Pvalue += F[fRow * (2 * r + 1) + fCol] * N[inRow * width + inCol];
    }
  }
  if (outRow < height && outCol < width)
    P[outRow * width + outCol] = Pvalue;
}

// NOTE: forge-port: note: applied expert:specialize-scalar: a copy of the body with 'r' = 2 as compile-time constants (the spec's values); other values call the original in conv2d_param_forge_any

// FIX:      // specialize-scalar: conv2d_param's original body, for any values of its parameters and of the
// FIX-NEXT: // thread's indices (passed in): the kernel calls it when r != 2.
// FIX-NEXT: static __device__ __noinline__ void conv2d_param_forge_any(const uint3 threadIdx, const uint3 blockIdx, const float *N, const float *F, float *P, int r, int width,
// FIX-NEXT:                              int height) {
// FIX-NEXT:   int outCol = blockIdx.x * blockDim.x + threadIdx.x;
// FIX:      __global__ void conv2d_param(const float *N, const float *F, float *P, int r, int width,
// FIX-NEXT:                              int height) {
// FIX-NEXT:   // specialize-scalar: 'r' = 2 (the spec's values) as compile-time constants below; other values run the original body.
// FIX-NEXT:   if (r != 2) {
// FIX-NEXT:     conv2d_param_forge_any(make_uint3(threadIdx.x, threadIdx.y, threadIdx.z), make_uint3(blockIdx.x, blockIdx.y, blockIdx.z), N, F, P, r, width, height);
// FIX-NEXT:     return;
// FIX-NEXT:   }
// FIX-NEXT:   {
// FIX-NEXT:     constexpr int r = 2;
// FIX-NEXT:     int outCol = blockIdx.x * blockDim.x + threadIdx.x;
// FIX-NEXT:     int outRow = blockIdx.y * blockDim.y + threadIdx.y;
// FIX-NEXT:     float Pvalue = 0.0f;
// FIX-NEXT:     for (int fRow = 0; fRow < 2 * r + 1; fRow++) {
// FIX:          if (outRow < height && outCol < width)
// FIX-NEXT:       P[outRow * width + outCol] = Pvalue;
// FIX-NEXT:   }
// FIX-NEXT: }

// TILE: applied expert:smem-stencil-tiling: stage 'N' in a 20 x 20 shared-memory tile (the 16 x 16 block's outputs and their halo), coefficients 'F' (25 values) in registers
// TILED-LABEL: __global__ void conv2d_param(
// TILED-NEXT: int height) {
// TILED-NEXT: if (r != 2) {
// TILED-NEXT: conv2d_param_forge_any(make_uint3(threadIdx.x, threadIdx.y, threadIdx.z), make_uint3(blockIdx.x, blockIdx.y, blockIdx.z), N, F, P, r, width, height);
// TILED-NEXT: return;
// TILED-NEXT: }
// TILED-NEXT: // smem-stencil-tiling:
// TILED: __shared__ float N_tile[20][
// TILED: F_c[c] = F[c];

// AGAIN: specialize-scalar: not applicable: no loop's trip count depends on an integer parameter
