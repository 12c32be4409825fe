// REQUIRES: cuda
// The benchmark's naive 5x5 convolution (utils/bench/kernels/conv2d_5x5.cu)
// with its spec's 16 x 16 blocks: a 20 x 20 tile (rows padded to 48 so the
// two rows a warp reads are on different banks), loaded in two phases, and
// the read of 'in' replaced by the tile element; the 25 values of the
// filter (a coefficient buffer) loaded once per thread into registers, its
// loops unrolled so that their indices are constants.
// RUN: forge-port propose %s --spec %S/Inputs/conv2d_5x5.json --rules=smem-stencil-tiling \
// RUN:   > %t.props 2> %t.notes
// RUN: FileCheck %s --check-prefix=WHY --input-file=%t.props
// RUN: forge-port propose %s --spec %S/Inputs/conv2d_5x5.json --rules=smem-stencil-tiling \
// RUN:   --apply -o %t.cu
// RUN: FileCheck %s --check-prefix=FIX --match-full-lines --input-file=%t.cu
// RUN: %nvcc -arch=sm_90 -ptx %t.cu -o - | FileCheck %s --check-prefix=PTX
// The second proposal: 4 rows of outputs per thread, the grid's y divided by 4.
// RUN: forge-port propose %s --spec %S/Inputs/conv2d_5x5.json --rules=smem-stencil-tiling \
// RUN:   --format=json > %t.json
// RUN: %python %S/../../Inputs/apply_proposal.py %t.json 1 %s > %t.rows.cu
// RUN: FileCheck %s --check-prefix=ROWS --match-full-lines --input-file=%t.rows.cu
// RUN: %nvcc -arch=sm_90 -ptx %t.rows.cu -o - | FileCheck %s --check-prefix=PTX4
// WHY: # expert:smem-stencil-tiling: stage 'in' in a 20 x 20 shared-memory tile (the 16 x 16 block's outputs and their halo), coefficients 'filt' (25 values) in registers
// WHY: global loads per output 25 -> 1.56, 3840 bytes of shared memory per block
// WHY-SAME: The coefficient reads (25 loads per output: 'filt' (25 values) in registers) read a copy loaded once per thread instead
// WHY: # expert:smem-stencil-tiling: stage 'in' in a 68 x 20 shared-memory tile, 4 y-rows of outputs per thread, coefficients 'filt' (25 values) in registers
// WHY: # spec: grid.y -> ceil_div(ceil_div(H, BLOCK / BX), 4)
// PTX: .shared .align 4 .b8 {{.*}}in_tile[3840];
// PTX: ld.global.f32
// PTX: st.shared.f32
// PTX: bar.sync
// PTX: ld.shared.f32
// PTX-NOT: ld.local
// PTX4: .shared .align 4 .b8 {{.*}}in_tile[13056];
// PTX4: bar.sync
// PTX4: ld.shared.f32
// PTX4-NOT: ld.local
#define CONV_K 5
#define CONV_R (CONV_K / 2)

__global__ void conv2d_5x5(const float *in, const float *filt, float *out,
                             int h, int w) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) {
    float acc = 0.0f;
    for (int i = -CONV_R; i <= CONV_R; ++i) {
      for (int j = -CONV_R; j <= CONV_R; ++j) {
        int yy = y + i, xx = x + j;
        if (yy >= 0 && yy < h && xx >= 0 && xx < w)
          acc += filt[(i + CONV_R) * CONV_K + (j + CONV_R)] *
                 in[(size_t)yy * w + xx];
      }
    }
    out[(size_t)y * w + x] = acc;
  }
}
// The original body runs for any other block shape; the 16 x 16 block
// loads the tile first (two phases), then runs the body reading from it.
// FIX:                               int h, int w) {
// FIX-NEXT:   // smem-stencil-tiling: 'in' in a 20 x 20 tile of shared memory: the 16 x 16 x 1 block's outputs and their halo,
// FIX-NEXT:   // loaded once by all threads, then read by the original code. Another block shape runs
// FIX-NEXT:   // the original code.
// FIX-NEXT:   if (blockDim.x != 16 || blockDim.y != 16 || blockDim.z != 1) {
// FIX-NEXT:     int x = blockIdx.x * blockDim.x + threadIdx.x;
// FIX:                     in[(size_t)yy * w + xx];
// FIX:          out[(size_t)y * w + x] = acc;
// FIX-NEXT:     }
// FIX-NEXT:     return;
// FIX-NEXT:   }
// FIX-NEXT:   __shared__ float in_tile[20][48];
// FIX-NEXT:   // Coefficients loaded once: 'filt' (25 values) in registers.
// FIX-NEXT:   float filt_c[25];
// FIX-NEXT: #pragma unroll
// FIX-NEXT:   for (int c = 0; c < 25; ++c)
// FIX-NEXT:     filt_c[c] = filt[c];
// FIX-NEXT:   {
// FIX-NEXT:     float in_v[2];
// FIX-NEXT: #pragma unroll
// FIX-NEXT:     for (int k = 0; k < 2; ++k) {
// FIX-NEXT:       int t = threadIdx.y * 16 + threadIdx.x + k * 256;
// FIX-NEXT:       long long e1 = 16 * (long long)blockIdx.y + t / 20 - 2;
// FIX-NEXT:       long long e0 = 16 * (long long)blockIdx.x + t % 20 - 2;
// FIX-NEXT:       in_v[k] = t < 400 && e1 >= 0 && e1 < (long long)h && e0 >= 0 && e0 < (long long)w ? in[e1 * w + e0] : 0.0f;
// FIX-NEXT:     }
// FIX-NEXT: #pragma unroll
// FIX-NEXT:     for (int k = 0; k < 2; ++k) {
// FIX-NEXT:       int t = threadIdx.y * 16 + threadIdx.x + k * 256;
// FIX-NEXT:       if (t < 400)
// FIX-NEXT:         in_tile[t / 20][t % 20] = in_v[k];
// FIX-NEXT:     }
// FIX-NEXT:   }
// FIX-NEXT:   __syncthreads();
// FIX-NEXT:   int x = blockIdx.x * blockDim.x + threadIdx.x;
// FIX:              acc += filt_c[(i + CONV_R) * CONV_K + (j + CONV_R)] *
// FIX-NEXT:                  in_tile[threadIdx.y + i + 2][threadIdx.x + j + 2];
// FIX-NEXT:       }
// FIX-NEXT:     }
// FIX-NEXT:     out[(size_t)y * w + x] = acc;
// The fallback steps by blockDim.y (any block shape, on the smaller grid);
// the tiled body by the spec's 16.
// ROWS:   if (blockDim.x != 16 || blockDim.y != 16 || blockDim.z != 1) {
// ROWS-NEXT:     #pragma unroll
// ROWS-NEXT:     for (int ky = 0; ky < 4; ++ky)
// ROWS-NEXT:       [&]() {
// ROWS-NEXT:         int x = blockIdx.x * blockDim.x + threadIdx.x;
// ROWS-NEXT:         int y = (blockIdx.y * 4) * blockDim.y + (threadIdx.y + ky * blockDim.y);
// ROWS:   __shared__ float in_tile[68][48];
// ROWS:       long long e1 = 16 * (long long)blockIdx.y * 4 + t / 20 - 2;
// ROWS:       in_v[k] = t < 1360 && e1 >= 0 && e1 < (long long)h && e0 >= 0 && e0 < (long long)w ? in[e1 * w + e0] : 0.0f;
// ROWS:   __syncthreads();
// ROWS-NEXT:   #pragma unroll
// ROWS-NEXT:   for (int ky = 0; ky < 4; ++ky)
// ROWS-NEXT:     [&]() {
// ROWS-NEXT:       int x = blockIdx.x * blockDim.x + threadIdx.x;
// ROWS-NEXT:       int y = (blockIdx.y * 4) * blockDim.y + (threadIdx.y + ky * 16);
// ROWS:                acc += filt_c[(i + CONV_R) * CONV_K + (j + CONV_R)] *
// ROWS-NEXT:                      in_tile[(threadIdx.y + ky * 16) + i + 2][threadIdx.x + j + 2];
