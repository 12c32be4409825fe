// REQUIRES: cuda
// The streaming form: where every read of the input sits in one loop over
// the row offset, the rule also proposes R x C outputs per thread with the
// window loaded one row at a time (8 x 2, then 4 x 2), after the
// whole-window proposals. The suite's 7x7 convolution, its separable
// convolution (a 'continue' for rows outside the image, a row sum per row),
// a clamped 3x3 blur, and two kernels it does not stream, with the reason.
//
// 7x7: proposals 0-2 are the whole window (4, 2 rows; 4 with the filter in
// shared memory), 3 and 4 the streamed 8 x 2 and 4 x 2.
// RUN: forge-port propose %s --spec %S/Inputs/conv2d_7x7.json --rules=stencil-register-rows > %t7.props
// RUN: FileCheck %s --check-prefix=SEVEN-SUM --input-file=%t7.props
// RUN: forge-port propose %s --spec %S/Inputs/conv2d_7x7.json --rules=stencil-register-rows --format=json > %t7.json
// RUN: %python %S/../../Inputs/apply_proposal.py %t7.json 3 %s > %t7.3.cu
// RUN: %python %S/../../Inputs/apply_proposal.py %t7.json 4 %s > %t7.4.cu
// RUN: FileCheck %s --check-prefix=SEVEN --match-full-lines --input-file=%t7.3.cu
// RUN: %nvcc -arch=sm_90 -ptx %t7.3.cu -o %t7.3.ptx
// RUN: %nvcc -arch=sm_90 -ptx %t7.4.cu -o %t7.4.ptx
// RUN: not grep -q "ld.local" %t7.3.ptx
// RUN: not grep -q "ld.local" %t7.4.ptx
// 8 x 2 outputs: 49 filter loads and 14 window rows of 8 elements, once in
// the interior copy and once in the border copy; 8 x 2 x 49 multiply-adds
// per copy. No window element is loaded twice.
// RUN: awk '/.entry _Z10conv2d_7x7/,/^}/' %t7.3.ptx | grep -c "ld.global" | FileCheck %s --check-prefix=LOADS7
// LOADS7: {{^}}273{{$}}
// RUN: awk '/.entry _Z10conv2d_7x7/,/^}/' %t7.3.ptx | grep -c "fma.rn.f32" | FileCheck %s --check-prefix=FMA7
// FMA7: {{^}}1568{{$}}
//
// 4 x 4 outputs with 16-byte window rows (proposal 5): an interior thread
// reads the 12 elements from column col0 - 4 as 3 float4 loads where the
// row is 16-byte aligned, and the 10 window elements one by one where it is
// not; the interior test covers all 12 columns. 10 rows x 3 vector loads.
// RUN: %python %S/../../Inputs/apply_proposal.py %t7.json 5 %s > %t7.5.cu
// RUN: FileCheck %s --check-prefix=VEC --match-full-lines --input-file=%t7.5.cu
// RUN: %nvcc -arch=sm_90 -ptx %t7.5.cu -o %t7.5.ptx
// RUN: not grep -q "ld.local" %t7.5.ptx
// RUN: awk '/.entry _Z10conv2d_7x7/,/^}/' %t7.5.ptx | grep -c "ld.global.v4.f32" | FileCheck %s --check-prefix=VLOADS7
// VLOADS7: {{^}}30{{$}}
// VEC:      const bool interior = all_active && (row0 - 3) >= 0 && (row0 - 3) + 9 <= (long long)h - 1 && (col0 - 4) >= 0 && (col0 - 4 + 11) <= (long long)w - 1;
// VEC-NEXT:   if (interior) {
// VEC-NEXT: #pragma unroll
// VEC-NEXT:     for (int rr = 0; rr < 10; ++rr) {
// VEC-NEXT:       float in_row[10];
// VEC-NEXT:       {
// VEC-NEXT:         long long e1 = row0 - 3 + rr;
// VEC-NEXT:         long long e0 = col0 - 4;
// VEC-NEXT:         const float *vp = &in[e1 * w + e0];
// VEC-NEXT:         if ((reinterpret_cast<unsigned long long>(vp) & 15) == 0) {
// VEC-NEXT:           float vrow[12];
// VEC-NEXT: #pragma unroll
// VEC-NEXT:           for (int v = 0; v < 3; ++v) {
// VEC-NEXT:             const float4 q = reinterpret_cast<const float4 *>(vp)[v];
// VEC-NEXT:             vrow[4 * v + 0] = q.x;
// VEC-NEXT:             vrow[4 * v + 1] = q.y;
// VEC-NEXT:             vrow[4 * v + 2] = q.z;
// VEC-NEXT:             vrow[4 * v + 3] = q.w;
// VEC-NEXT:           }
// VEC-NEXT: #pragma unroll
// VEC-NEXT:           for (int jj = 0; jj < 10; ++jj)
// VEC-NEXT:             in_row[jj] = vrow[jj + 1];
// VEC-NEXT:         } else {
// VEC-NEXT: #pragma unroll
// VEC-NEXT:           for (int jj = 0; jj < 10; ++jj) {
// VEC-NEXT:             long long e12 = row0 - 3 + rr;
// VEC-NEXT:             long long e02 = col0 - 3 + jj;
// VEC-NEXT:             in_row[jj] = in[e12 * w + e02];
// VEC-NEXT:           }
// VEC-NEXT:         }
// VEC-NEXT:       }
//
// RUN: forge-port propose %s --spec %S/Inputs/conv2d_separable.json --rules=stencil-register-rows --format=json > %ts.json
// RUN: %python %S/../../Inputs/apply_proposal.py %ts.json 2 %s > %ts.2.cu
// RUN: %python %S/../../Inputs/apply_proposal.py %ts.json 3 %s > %ts.3.cu
// RUN: FileCheck %s --check-prefix=SEP --match-full-lines --input-file=%ts.2.cu
// RUN: %nvcc -arch=sm_90 -ptx %ts.2.cu -o %ts.2.ptx
// RUN: %nvcc -arch=sm_90 -ptx %ts.3.cu -o %ts.3.ptx
// RUN: not grep -q "ld.local" %ts.2.ptx
// RUN: not grep -q "ld.local" %ts.3.ptx
//
// RUN: forge-port propose %s --spec %S/Inputs/blur.json --rules=stencil-register-rows --format=json > %tb.json
// RUN: %python %S/../../Inputs/apply_proposal.py %tb.json 2 %s > %tb.2.cu
// RUN: %python %S/../../Inputs/apply_proposal.py %tb.json 3 %s > %tb.3.cu
// RUN: FileCheck %s --check-prefix=BLUR --match-full-lines --input-file=%tb.2.cu
// RUN: %nvcc -arch=sm_90 -ptx %tb.2.cu -o %tb.2.ptx
// RUN: %nvcc -arch=sm_90 -ptx %tb.3.cu -o %tb.3.ptx
// RUN: not grep -q "ld.local" %tb.2.ptx
//
// Not streamed: a statement before the row loop that is not a declaration,
// and a row loop inside the column loop. The whole window still applies.
// RUN: forge-port propose %s --spec %S/Inputs/blur_scaled.json --rules=stencil-register-rows > %tn1.props
// RUN: FileCheck %s --check-prefix=NO-PROLOGUE --input-file=%tn1.props
// RUN: forge-port propose %s --spec %S/Inputs/blur_transposed.json --rules=stencil-register-rows > %tn2.props
// RUN: FileCheck %s --check-prefix=NO-NEST --input-file=%tn2.props

#define CONV_K 7
#define CONV_R (CONV_K / 2)

// SEVEN-SUM: # expert:stencil-register-rows: compute 4 output rows per thread from a 10 x 7 register window of 'in'{{.*}}
// SEVEN-SUM: # expert:stencil-register-rows: compute 2 output rows per thread{{.*}}
// SEVEN-SUM: # expert:stencil-register-rows: compute 4 output rows per thread{{.*}}in shared memory{{.*}}
// SEVEN-SUM: # expert:stencil-register-rows: stream a 14 x 8 window of 'in' row by row into 8 x 2 outputs per thread, coefficients 'filt' (49 values) in registers, interior threads without the 4 border test(s)
// SEVEN-SUM: # spec: grid.x -> ceil_div(ceil_div(W, BX), 2)
// SEVEN-SUM-NEXT: # spec: grid.y -> ceil_div(ceil_div(H, BLOCK / BX), 8)
// SEVEN-SUM: # expert:stencil-register-rows: stream a 10 x 8 window of 'in' row by row into 4 x 2 outputs per thread{{.*}}
// SEVEN-SUM: # expert:stencil-register-rows: stream a 10 x 10 window of 'in' row by row into 4 x 4 outputs per thread, coefficients 'filt' (49 values) in registers, interior threads without the 4 border test(s), interior rows in 16-byte loads (3 x float4)
// SEVEN-SUM: # spec: grid.x -> ceil_div(ceil_div(W, BX), 4)
// SEVEN-SUM-NEXT: # spec: grid.y -> ceil_div(ceil_div(H, BLOCK / BX), 4)
// SEVEN-SUM-NOT: # expert:
__global__ void conv2d_7x7(const float *in, const float *filt, float *out,
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
// The prologue per output: the locals computed from the thread's position
// declared again per output scope, the thread's guard a flag per output.
// SEVEN:   const long long row0 = 8 * ((long long)blockIdx.y * (long long)blockDim.y + (long long)threadIdx.y);
// SEVEN-NEXT:   const long long col0 = 2 * ((long long)blockIdx.x * (long long)blockDim.x + (long long)threadIdx.x);
// SEVEN-NEXT:   float acc_s[8][2];
// SEVEN-NEXT:   bool act[8][2];
// SEVEN-NEXT:   bool all_active = true;
// SEVEN:       const int x = (blockIdx.x * 2) * blockDim.x + (threadIdx.x * 2 + c);
// SEVEN-NEXT:       const int y = (blockIdx.y * 8) * blockDim.y + (threadIdx.y * 8 + o);
// SEVEN-NEXT:       act[o][c] = (x < w && y < h);
// SEVEN-NEXT:       if (act[o][c]) acc_s[o][c] = 0.0f;
// SEVEN-NEXT:       all_active = all_active && act[o][c];
// SEVEN-NEXT:     }
// SEVEN-NEXT:   // Threads whose window lies inside the borders run a copy with the border tests known to hold.
// SEVEN-NEXT:   // Its threads' outputs all pass their guards: it tests none.
// SEVEN-NEXT:   const bool interior = all_active && (row0 - 3) >= 0 && (row0 - 3) + 13 <= (long long)h - 1 && (col0 - 3) >= 0 && (col0 - 3 + 7) <= (long long)w - 1;
// Interior: one window row of 8 elements, loaded without tests, used by
// the outputs o whose row offset i = rr - o - 3 is in -3..3, unguarded.
// SEVEN-NEXT:   if (interior) {
// SEVEN-NEXT: #pragma unroll
// SEVEN-NEXT:     for (int rr = 0; rr < 14; ++rr) {
// SEVEN-NEXT:       float in_row[8];
// SEVEN:         in_row[jj] = in[e1 * w + e0];
// SEVEN:         const int i = rr - o - 3;
// SEVEN-NEXT:         if (i >= -3 && i <= 3) {
// SEVEN-NEXT: #pragma unroll
// SEVEN-NEXT:           for (int c = 0; c < 2; ++c) {
// SEVEN-NEXT:             const int x = (blockIdx.x * 2) * blockDim.x + (threadIdx.x * 2 + c);
// SEVEN-NEXT:             const int y = (blockIdx.y * 8) * blockDim.y + (threadIdx.y * 8 + o);
// SEVEN-NEXT:             do {
// SEVEN-NEXT: #pragma unroll
// SEVEN-NEXT:                 for (int j = -CONV_R; j <= CONV_R; ++j) {
// SEVEN-NEXT:                   int yy = y + i, xx = x + j;
// SEVEN-NEXT:                   if (((void)(yy >= 0), true) && ((void)(yy < h), true) && ((void)(xx >= 0), true) && ((void)(xx < w), true))
// SEVEN-NEXT:                     acc_s[o][c] += filt_c[(i + CONV_R) * CONV_K + (j + CONV_R)] *
// SEVEN-NEXT:                            in_row[c + j + 3];
// The interior threads' epilogue, unguarded.
// SEVEN:     // The code after the row loop, per output.
// SEVEN-NEXT: #pragma unroll
// SEVEN-NEXT:     for (int o = 0; o < 8; ++o)
// SEVEN-NEXT: #pragma unroll
// SEVEN-NEXT:       for (int c = 0; c < 2; ++c) {
// SEVEN-NEXT:         const int x = (blockIdx.x * 2) * blockDim.x + (threadIdx.x * 2 + c);
// SEVEN-NEXT:         const int y = (blockIdx.y * 8) * blockDim.y + (threadIdx.y * 8 + o);
// SEVEN-NEXT:           out[(size_t)y * w + x] = acc_s[o][c];
// SEVEN-NEXT:       }
// The border copy keeps every tap's test and each output's guard; its
// window row is zero where the original reads nothing.
// SEVEN-NEXT:   } else {
// SEVEN:         in_row[jj] = e12 >= 0 && e12 < (long long)h && e02 >= 0 && e02 < (long long)w ? in[e12 * w + e02] : 0.0f;
// SEVEN:             if (act[o][c])
// SEVEN-NEXT:               do {
// SEVEN:                     if (yy >= 0 && yy < h && xx >= 0 && xx < w)
// SEVEN-NEXT:                       acc_s[o][c] += filt_c[(i + CONV_R) * CONV_K + (j + CONV_R)] *
// SEVEN-NEXT:                              in_row[c + j + 3];
// The border threads' epilogue, under each output's guard.
// SEVEN:     // The code after the row loop, per output.
// SEVEN-NEXT: #pragma unroll
// SEVEN-NEXT:     for (int o = 0; o < 8; ++o)
// SEVEN-NEXT: #pragma unroll
// SEVEN-NEXT:       for (int c = 0; c < 2; ++c) {
// SEVEN-NEXT:         const int x = (blockIdx.x * 2) * blockDim.x + (threadIdx.x * 2 + c);
// SEVEN-NEXT:         const int y = (blockIdx.y * 8) * blockDim.y + (threadIdx.y * 8 + o);
// SEVEN-NEXT:         if (act[o][c]) {
// SEVEN-NEXT:             out[(size_t)y * w + x] = acc_s[o][c];
// SEVEN-NEXT:         }
// SEVEN-NEXT:       }
// SEVEN-NEXT:   }
// SEVEN-NEXT: }

#define SEP_R 3

__global__ void conv2d_separable(const float *in, const float *fx,
                                 const float *fy, float *out, int h, int w) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) {
    float acc = 0.0f;
    for (int i = -SEP_R; i <= SEP_R; ++i) {
      int yy = y + i;
      if (yy < 0 || yy >= h)
        continue;
      float row = 0.0f;
      for (int j = -SEP_R; j <= SEP_R; ++j) {
        int xx = x + j;
        if (xx >= 0 && xx < w)
          row += fx[j + SEP_R] * in[(size_t)yy * w + xx];
      }
      acc += fy[i + SEP_R] * row;
    }
    out[(size_t)y * w + x] = acc;
  }
}
// The row loop's body per output and window row: its 'continue' leaves
// that output's row (the do-while), its row sum is the output's own.
// SEP:   // stencil-register-rows (streaming): 8 x 2 outputs per thread; the 14 rows of 8 input elements
// SEP:         const int i = rr - o - 3;
// SEP-NEXT:         if (i >= -3 && i <= 3) {
// SEP-NEXT: #pragma unroll
// SEP-NEXT:           for (int c = 0; c < 2; ++c) {
// SEP-NEXT:             const int x = (blockIdx.x * 2) * blockDim.x + (threadIdx.x * 2 + c);
// SEP-NEXT:             const int y = (blockIdx.y * 8) * blockDim.y + (threadIdx.y * 8 + o);
// SEP-NEXT:             do {
// SEP-NEXT:                 int yy = y + i;
// SEP-NEXT:                 if (((void)(yy < 0), false) || ((void)(yy >= h), false))
// SEP-NEXT:                   continue;
// SEP-NEXT:                 float row = 0.0f;
// SEP-NEXT: #pragma unroll
// SEP-NEXT:                 for (int j = -SEP_R; j <= SEP_R; ++j) {
// SEP-NEXT:                   int xx = x + j;
// SEP-NEXT:                   if (((void)(xx >= 0), true) && ((void)(xx < w), true))
// SEP-NEXT:                     row += fx_c[j + SEP_R] * in_row[c + j + 3];
// SEP-NEXT:                 }
// SEP-NEXT:                 acc_s[o][c] += fy_c[i + SEP_R] * row;
// SEP-NEXT:             } while (0);
// SEP:                   if (yy < 0 || yy >= h)
// SEP-NEXT:                     continue;

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
// Clamped: the window row's elements are clamped as the reads clamp, and
// there is no interior copy (nothing to drop).
// BLUR:   // stencil-register-rows (streaming): 8 x 2 outputs per thread; the 10 rows of 4 input elements
// BLUR-NOT: const bool interior
// BLUR:     for (int rr = 0; rr < 10; ++rr) {
// BLUR-NEXT:     float src_row[4];
// BLUR:       long long e1 = row0 - 1 + rr;
// BLUR-NEXT:       long long e0 = col0 - 1 + jj;
// BLUR-NEXT:       long long e1c = e1 < 0 ? 0 : e1 > (long long)height - 1 ? (long long)height - 1 : e1;
// BLUR-NEXT:       long long e0c = e0 < 0 ? 0 : e0 > (long long)width - 1 ? (long long)width - 1 : e0;
// BLUR-NEXT:       src_row[jj] = 0 <= (long long)height - 1 && 0 <= (long long)width - 1 ? src[e1c * width + e0c] : 0.0f;
// BLUR:                 int sy = py + oy;
// BLUR-NEXT:                 if (sy < 0) sy = 0;
// BLUR-NEXT:                 if (sy > height - 1) sy = height - 1;
// BLUR:                   total_s[o][c] += src_row[c + ox + 1];
// BLUR:         dst[py * width + px] = total_s[o][c] * (1.0f / 9.0f);

__global__ void blur_scaled(const float *src, float *dst, int width, int height) {
  int px = blockIdx.x * blockDim.x + threadIdx.x;
  int py = blockIdx.y * blockDim.y + threadIdx.y;
  float total = 0.0f;
  total = total * 0.5f;
  if (px < width && py < height) {
    for (int oy = -1; oy <= 1; ++oy)
      for (int ox = -1; ox <= 1; ++ox)
        total += src[min(max(py + oy, 0), height - 1) * width + min(max(px + ox, 0), width - 1)];
    dst[py * width + px] = total;
  }
}
// NO-PROLOGUE: # expert:stencil-register-rows: compute 4 output rows per thread{{.*}}
// NO-PROLOGUE: # Not streamed: the statement at line [[#@LINE-9]], before the loop over 'oy', is not a declaration or an early return: the code before the loop runs once per output ahead of the streamed rows, and only those are moved.
// NO-PROLOGUE-NOT: stream a

__global__ void blur_transposed(const float *src, float *dst, int width, int height) {
  int px = blockIdx.x * blockDim.x + threadIdx.x;
  int py = blockIdx.y * blockDim.y + threadIdx.y;
  if (px < width && py < height) {
    float total = 0.0f;
    for (int ox = -1; ox <= 1; ++ox)
      for (int oy = -1; oy <= 1; ++oy)
        total += src[min(max(py + oy, 0), height - 1) * width + min(max(px + ox, 0), width - 1)];
    dst[py * width + px] = total;
  }
}
// NO-NEST: # expert:stencil-register-rows: compute 4 output rows per thread{{.*}}
// NO-NEST: # Not streamed: the loop over 'oy' is inside a loop (line [[#@LINE-7]]): the outputs' rows can be streamed only when blocks and guards lead to it.
// NO-NEST-NOT: stream a
