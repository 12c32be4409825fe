// REQUIRES: cuda
// A 1D stencil written with an early return and 'continue' guards: the
// tile is loaded before the early return (every thread must reach the
// barrier), its bounds come from the 'continue' conditions. The 9 weights
// of 'wt' (a coefficient buffer) are loaded once per thread into registers
// and the tap loop unrolls, so that their indices are constants.
// RUN: forge-port propose %s --kernel stencil --block 128 --rules=smem-stencil-tiling \
// RUN:   --apply -o %t.cu 2>&1 | FileCheck %s --check-prefix=NOTE
// RUN: FileCheck %s --check-prefix=FIX --match-full-lines --input-file=%t.cu
// RUN: %nvcc -arch=sm_90 -ptx %t.cu -o - | FileCheck %s --check-prefix=PTX
// NOTE: forge-port: note: applied expert:smem-stencil-tiling: stage 'x' in a 136-element shared-memory tile (the 128-thread block's outputs and their halo), coefficients 'wt' (9 values) in registers
// PTX: .shared .align 4 .b8 {{.*}}x_tile[544];
// PTX: st.shared.f32
// PTX: bar.sync
// PTX: ld.shared.f32
// PTX-NOT: ld.local
#define RADIUS 4

__global__ void stencil(int n, const float *x, const float *wt, float *y) {
  int i = threadIdx.x + blockDim.x * blockIdx.x;
  if (i >= n)
    return;
  float acc = 0.0f;
  for (int k = 0; k < 2 * RADIUS + 1; ++k) {
    int p = i + k - RADIUS;
    if (p < 0 || p >= n)
      continue;
    acc += wt[k] * x[p];
  }
  y[i] = acc;
}
// FIX:      __global__ void stencil(int n, const float *x, const float *wt, float *y) {
// FIX-NEXT:   // smem-stencil-tiling: 'x' in a 136-element tile of shared memory: the 128 x 1 x 1 block's outputs and their halo,
// FIX-NEXT:   // loaded once by all threads, then read by the original code. Another block shape runs
// FIX-NEXT:   // the original code.
// FIX-NEXT:   if (blockDim.x != 128 || blockDim.y != 1 || blockDim.z != 1) {
// FIX-NEXT:     int i = threadIdx.x + blockDim.x * blockIdx.x;
// FIX-NEXT:     if (i >= n)
// FIX-NEXT:       return;
// FIX:          acc += wt[k] * x[p];
// FIX-NEXT:     }
// FIX-NEXT:     y[i] = acc;
// FIX-NEXT:     return;
// FIX-NEXT:   }
// FIX-NEXT:   __shared__ float x_tile[136];
// FIX-NEXT:   // Coefficients loaded once: 'wt' (9 values) in registers.
// FIX-NEXT:   float wt_c[9];
// FIX-NEXT: #pragma unroll
// FIX-NEXT:   for (int c = 0; c < 9; ++c)
// FIX-NEXT:     wt_c[c] = wt[c];
// FIX-NEXT:   {
// FIX-NEXT:     float x_v[2];
// FIX-NEXT: #pragma unroll
// FIX-NEXT:     for (int k2 = 0; k2 < 2; ++k2) {
// FIX-NEXT:       int t = threadIdx.x + k2 * 128;
// FIX-NEXT:       long long e0 = 128 * (long long)blockIdx.x + t - 4;
// FIX-NEXT:       x_v[k2] = t < 136 && e0 >= 0 && e0 < (long long)n ? x[e0] : 0.0f;
// FIX-NEXT:     }
// FIX:        __syncthreads();
// FIX-NEXT:   int i = threadIdx.x + blockDim.x * blockIdx.x;
// FIX-NEXT:   if (i >= n)
// FIX-NEXT:     return;
// FIX-NEXT:   float acc = 0.0f;
// FIX-NEXT: #pragma unroll
// FIX-NEXT:   for (int k = 0; k < 2 * RADIUS + 1; ++k) {
// FIX:          acc += wt_c[k] * x_tile[threadIdx.x + k];
