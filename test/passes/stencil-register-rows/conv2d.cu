// REQUIRES: cuda
// The suite's zero-padded convolutions (utils/bench/kernels/conv2d_5x5.cu,
// conv2d_7x7.cu: a #define radius, the filter in a buffer, a size_t index)
// with their specs. The window is loaded where the original's guard says it
// reads (zero elsewhere); the filter (a coefficient buffer) is loaded once:
// 5x5, 4 and 8 rows (8 x 5 and 12 x 5 windows) with its 25 values in
// registers; 7x7, 4 and 2 rows (10 x 7 and 8 x 7) with its 49 values in
// registers (within the 128-register budget), and 4 rows with them in
// shared memory (the 96-register variant). None spills.
// RUN: forge-port propose %s --spec %S/../smem-stencil-tiling/Inputs/conv2d_5x5.json --rules=stencil-register-rows --format=json > %t5.json
// RUN: %python %S/../../Inputs/apply_proposal.py %t5.json 0 %s > %t5.0.cu
// RUN: %python %S/../../Inputs/apply_proposal.py %t5.json 1 %s > %t5.1.cu
// RUN: FileCheck %s --check-prefix=FIVE --match-full-lines --input-file=%t5.0.cu
// RUN: FileCheck %s --check-prefix=FIVE2 --match-full-lines --input-file=%t5.1.cu
// RUN: %nvcc -arch=sm_90 -ptx %t5.0.cu -o %t5.0.ptx
// RUN: %nvcc -arch=sm_90 -ptx %t5.1.cu -o %t5.1.ptx
// RUN: not grep -q "ld.local" %t5.0.ptx
// RUN: not grep -q "ld.local" %t5.1.ptx
// conv2d_5x5: 40 window loads (one copy for interior threads, one for the
// others) and 25 filter loads per thread, for 4 outputs; the interior copy
// keeps no border test: 100 selects, all of them the border copy's.
// RUN: awk '/.entry _Z10conv2d_5x5/,/^}/' %t5.0.ptx | grep -c "ld.global" | FileCheck %s --check-prefix=LOADS5
// LOADS5: {{^}}105{{$}}
// RUN: awk '/.entry _Z10conv2d_5x5/,/^}/' %t5.0.ptx | grep -c "selp" | FileCheck %s --check-prefix=SELECTS5
// SELECTS5: {{^}}100{{$}}
// RUN: forge-port propose %s --spec %S/Inputs/conv2d_7x7.json --rules=stencil-register-rows > %t7.props
// RUN: FileCheck %s --check-prefix=SEVEN --input-file=%t7.props
// RUN: forge-port propose %s --spec %S/Inputs/conv2d_7x7.json --rules=stencil-register-rows --format=json > %t7.json
// RUN: %python %S/../../Inputs/apply_proposal.py %t7.json 2 %s > %t7.cu
// RUN: %python %S/../../Inputs/apply_proposal.py %t7.json 0 %s > %t7r.cu
// RUN: %nvcc -arch=sm_90 -ptx %t7r.cu -o %t7r.ptx
// RUN: not grep -q "ld.local" %t7r.ptx
// RUN: FileCheck %s --check-prefix=SEVEN-FIX --match-full-lines --input-file=%t7.cu
// RUN: %nvcc -arch=sm_90 -ptx %t7.cu -o %t7.ptx
// RUN: not grep -q "ld.local" %t7.ptx
// FIVE:   // Coefficients loaded once: 'filt' (25 values) in registers.
// FIVE-NEXT:   float filt_c[25];
// FIVE-NEXT: #pragma unroll
// FIVE-NEXT:   for (int c = 0; c < 25; ++c)
// FIVE-NEXT:     filt_c[c] = filt[c];
// FIVE:   float in_win[8][5];
// A thread whose 8 x 5 window lies inside the image runs a copy of the body
// with the four border tests replaced by their values, and loads its window
// without tests; the others run the body as written.
// FIVE-NEXT:   // Threads whose window lies inside the borders run a copy with the border tests known to hold.
// FIVE-NEXT:   const bool interior = (row0 - 2) >= 0 && (row0 - 2) + 7 <= (long long)h - 1 && ((long long)blockIdx.x * (long long)blockDim.x + (long long)threadIdx.x - 2) >= 0 && ((long long)blockIdx.x * (long long)blockDim.x + (long long)threadIdx.x + 2) <= (long long)w - 1;
// FIVE-NEXT:   if (interior) {
// FIVE:         in_win[i2][j2] = in[e1 * w + e0];
// FIVE:         int y = (blockIdx.y * 4) * blockDim.y + (threadIdx.y * 4 + r);
// FIVE:               if (((void)(yy >= 0), true) && ((void)(yy < h), true) && ((void)(xx >= 0), true) && ((void)(xx < w), true))
// FIVE-NEXT:                 acc += filt_c[(i + CONV_R) * CONV_K + (j + CONV_R)] *
// FIVE-NEXT:                        in_win[r + i + 2][j + 2];
// FIVE:   } else {
// FIVE:         long long e12 = row0 - 2 + i3;
// FIVE-NEXT:         long long e02 = (long long)blockIdx.x * (long long)blockDim.x + (long long)threadIdx.x - 2 + j3;
// FIVE-NEXT:         in_win[i3][j3] = e12 >= 0 && e12 < (long long)h && e02 >= 0 && e02 < (long long)w ? in[e12 * w + e02] : 0.0f;
// FIVE:         int y = (blockIdx.y * 4) * blockDim.y + (threadIdx.y * 4 + r);
// FIVE:               if (yy >= 0 && yy < h && xx >= 0 && xx < w)
// FIVE-NEXT:                 acc += filt_c[(i + CONV_R) * CONV_K + (j + CONV_R)] *
// FIVE-NEXT:                        in_win[r + i + 2][j + 2];
// FIVE2:   float filt_c[25];
// FIVE2:   float in_win[12][5];
// FIVE2:   for (int r = 0; r < 8; ++r)
// SEVEN: # expert:stencil-register-rows: compute 4 output rows per thread from a 10 x 7 register window of 'in', coefficients 'filt' (49 values) in registers, interior threads without the 4 border test(s)
// SEVEN: # spec: grid.y -> ceil_div(ceil_div(H, BLOCK / BX), 4)
// SEVEN: # expert:stencil-register-rows: compute 2 output rows per thread from a 8 x 7 register window of 'in', coefficients 'filt' (49 values) in registers, interior threads without the 4 border test(s)
// SEVEN: # spec: grid.y -> ceil_div(ceil_div(H, BLOCK / BX), 2)
// SEVEN: # expert:stencil-register-rows: compute 4 output rows per thread from a 10 x 7 register window of 'in', coefficients 'filt' (49 values) in shared memory, interior threads without the 4 border test(s)
// SEVEN: # spec: grid.y -> ceil_div(ceil_div(H, BLOCK / BX), 4)
// SEVEN-FIX:   __shared__ float filt_s[49];
// SEVEN-FIX:   __syncthreads();
// SEVEN-FIX-NEXT:   const long long row0 = 4 * ((long long)blockIdx.y * (long long)blockDim.y + (long long)threadIdx.y);
// SEVEN-FIX:               if (((void)(yy >= 0), true) && ((void)(yy < h), true) && ((void)(xx >= 0), true) && ((void)(xx < w), true))
// SEVEN-FIX-NEXT:                 acc += filt_s[(i + R7) * K7 + (j + R7)] * in_win[r + i + 3][j + 3];
// SEVEN-FIX:   } else {
// SEVEN-FIX:               if (yy >= 0 && yy < h && xx >= 0 && xx < w)
// SEVEN-FIX-NEXT:                 acc += filt_s[(i + R7) * K7 + (j + R7)] * in_win[r + i + 3][j + 3];

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

#define K7 7
#define R7 (K7 / 2)

__global__ void conv2d_7x7(const float *in, const float *filt, float *out,
                             int h, int w) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) {
    float acc = 0.0f;
    for (int i = -R7; i <= R7; ++i) {
      for (int j = -R7; j <= R7; ++j) {
        int yy = y + i, xx = x + j;
        if (yy >= 0 && yy < h && xx >= 0 && xx < w)
          acc += filt[(i + R7) * K7 + (j + R7)] * in[(size_t)yy * w + xx];
      }
    }
    out[(size_t)y * w + x] = acc;
  }
}
