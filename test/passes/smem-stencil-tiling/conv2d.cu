// REQUIRES: cuda
// The benchmark's naive 5x5 convolution (utils/bench/kernels/conv2d_5x5.cu)
// with its spec's 16 x 16 blocks: a 20 x 20 tile (rows padded to 48 so the
// two rows a warp reads are on different banks), loaded in two phases, and
// the read of 'in' replaced by the tile element; nothing else changes.
// RUN: forge-port propose %s --spec %S/Inputs/conv2d_5x5.json --rules=smem-stencil-tiling \
// RUN:   > %t.props 2> %t.notes
// RUN: FileCheck %s --check-prefix=WHY --input-file=%t.props
// RUN: forge-port propose %s --spec %S/Inputs/conv2d_5x5.json --rules=smem-stencil-tiling \
// RUN:   --apply -o %t.cu
// RUN: FileCheck %s --check-prefix=FIX --match-full-lines --input-file=%t.cu
// RUN: %nvcc -arch=sm_90 -ptx %t.cu -o - | FileCheck %s --check-prefix=PTX
// WHY: # expert:smem-stencil-tiling: stage 'in' in a 20 x 20 shared-memory tile (the 16 x 16 block's outputs and their halo)
// WHY: global loads per output 25 -> 1.56, 3840 bytes of shared memory per block
// PTX: .shared .align 4 .b8 {{.*}}in_tile[3840];
// PTX: ld.global.f32
// PTX: st.shared.f32
// PTX: bar.sync
// PTX: ld.shared.f32
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
// FIX:                               int h, int w) {
// FIX-NEXT:   // smem-stencil-tiling: the block's 20 x 20 input tile (16 x 16 outputs and their halo),
// FIX-NEXT:   // loaded once by all threads and then read from shared memory (rows padded to 48
// FIX-NEXT:   // elements, so that the rows a warp reads are on different banks).
// FIX-NEXT:   __shared__ float in_tile[20][48];
// FIX-NEXT:   {
// FIX-NEXT:     float in_v[2];
// FIX-NEXT: #pragma unroll
// FIX-NEXT:     for (int k = 0; k < 2; ++k) {
// FIX-NEXT:       int t = threadIdx.y * 16 + threadIdx.x + k * 256;
// FIX-NEXT:       int gy = (int)blockIdx.y * 16 + t / 20 - 2;
// FIX-NEXT:       int gx = (int)blockIdx.x * 16 + t % 20 - 2;
// FIX-NEXT:       in_v[k] = t < 400 && gy >= 0 && gy < h && gx >= 0 && gx < w
// FIX-NEXT:           ? in[(size_t)gy * w + gx] : 0.0f;
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
// FIX:                  in_tile[threadIdx.y + i + 2][threadIdx.x + j + 2];
// FIX-NEXT:       }
// FIX-NEXT:     }
// FIX-NEXT:     out[(size_t)y * w + x] = acc;
