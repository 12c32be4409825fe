// REQUIRES: cuda
// The naive benchmark's 3x3 box blur (utils/bench/naive/blur.cu: clamps as
// if-assignments along y and min/max along x) with its spec's 16 x 16
// blocks: 4 rows per thread from a 6 x 3 register window (the first
// proposal) and 8 rows from a 10 x 3 one (the second), the grid's y
// divided accordingly. The window is loaded with the original's clamps;
// the body runs once per row with y the row's and its reads from the window.
// RUN: forge-port propose %s --spec %S/Inputs/blur.json --rules=stencil-register-rows > %t.props
// RUN: FileCheck %s --check-prefix=WHY --input-file=%t.props
// RUN: forge-port propose %s --spec %S/Inputs/blur.json --rules=stencil-register-rows --apply -o %t.cu
// RUN: FileCheck %s --check-prefix=FIX --match-full-lines --input-file=%t.cu
// RUN: %nvcc -arch=sm_90 -ptx %t.cu -o %t.ptx
// RUN: grep -c "ld.global" %t.ptx | FileCheck %s --check-prefix=LOADS4
// RUN: forge-port propose %s --spec %S/Inputs/blur.json --rules=stencil-register-rows --format=json > %t.json
// RUN: %python %S/../../Inputs/apply_proposal.py %t.json 1 %s > %t.rows8.cu
// RUN: FileCheck %s --check-prefix=ROWS8 --match-full-lines --input-file=%t.rows8.cu
// RUN: %nvcc -arch=sm_90 -ptx %t.rows8.cu -o %t.rows8.ptx
// RUN: grep -c "ld.global" %t.rows8.ptx | FileCheck %s --check-prefix=LOADS8
// RUN: not grep -q "ld.local" %t.rows8.ptx
// WHY: # expert:stencil-register-rows: compute 4 output rows per thread from a 6 x 3 register window of 'src'
// WHY: loads per output 9 -> 4.50
// WHY: # spec: grid.y -> ceil_div(ceil_div(H, 16), 4)
// WHY: # expert:stencil-register-rows: compute 8 output rows per thread from a 10 x 3 register window of 'src'
// WHY: # spec: grid.y -> ceil_div(ceil_div(H, 16), 8)
// The window: 6 rows from row0 - 1, each element clamped as the reads are.
// FIX:   const long long row0 = 4 * ((long long)blockIdx.y * (long long)blockDim.y + (long long)threadIdx.y);
// FIX-NEXT:   float src_win[6][3];
// FIX:       long long e1 = row0 - 1 + i;
// FIX-NEXT:       long long e0 = (long long)blockIdx.x * (long long)blockDim.x + (long long)threadIdx.x - 1 + j;
// FIX-NEXT:       long long e1c = e1 < 0 ? 0 : e1 > (long long)height - 1 ? (long long)height - 1 : e1;
// FIX-NEXT:       long long e0c = e0 < 0 ? 0 : e0 > (long long)width - 1 ? (long long)width - 1 : e0;
// FIX-NEXT:       src_win[i][j] = 0 <= (long long)height - 1 && 0 <= (long long)width - 1 ? src[e1c * width + e0c] : 0.0f;
// The body per row: y is the row's, the read is the window element, the
// offsets' loops are unrolled.
// FIX:   for (int r = 0; r < 4; ++r)
// FIX-NEXT:     [&]() {
// FIX-NEXT:       int px = blockIdx.x * blockDim.x + threadIdx.x;
// FIX-NEXT:       int py = (blockIdx.y * 4) * blockDim.y + (threadIdx.y * 4 + r);
// FIX-NEXT:       if (px < width && py < height) {
// FIX:     #pragma unroll
// FIX-NEXT:         for (int oy = -1; oy <= 1; ++oy) {
// FIX:             total += src_win[r + oy + 1][ox + 1];
// FIX:         dst[py * width + px] = total * (1.0f / 9.0f);
// FIX:     }();
// ROWS8:   float src_win[10][3];
// ROWS8:   for (int r = 0; r < 8; ++r)
// ROWS8:       int py = (blockIdx.y * 8) * blockDim.y + (threadIdx.y * 8 + r);
// 6 x 3 and 10 x 3 loads per thread, not 9 per output.
// LOADS4: 18
// LOADS8: 30

// 3x3 box blur of a w x h image, clamped at the borders.
__global__ void box_blur3(const float *src, float *dst, int width, int height) {
  int px = blockIdx.x * blockDim.x + threadIdx.x;
  int py = blockIdx.y * blockDim.y + threadIdx.y;
  if (px < width && py < height) {
    float total = 0.0f;
    for (int oy = -1; oy <= 1; ++oy) {
      int sy = py + oy;
      if (sy < 0) sy = 0;
      if (sy > height - 1) sy = height - 1;
      for (int ox = -1; ox <= 1; ++ox) {
        int sx = min(max(px + ox, 0), width - 1);
        total += src[sy * width + sx];
      }
    }
    dst[py * width + px] = total * (1.0f / 9.0f);
  }
}
