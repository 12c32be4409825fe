// REQUIRES: cuda
// The 16-byte path in 2D: a guard 'col < width && row < height' on the
// column and the row of a 2D grid, and loads at 'row * pitch + col' (the
// kernel model's index form: the column with coefficient 1, the row times a
// pitch every thread shares). Each row is read from its own 16-byte
// boundary (a scalar head, 16-byte steps, a scalar step at the row's end),
// the whole grid striding over the (row, step) pairs, so the grid becomes
// one capped row of blocks. When every load's pitch is the row's length
// (no gap between rows, checked at run time), the rows are one range of
// rows * width elements, read as the 1D path reads its range. Then two
// loads at two pitches through an index
// local after an exit, and the refusals. Each result compiles with nvcc.
// RUN: forge-port propose %s --kernel image_levels --spec %S/Inputs/image-levels.json \
// RUN:   --rules=histogram-privatize --apply -o %t1.cu 2>&1 | FileCheck %s --check-prefix=NOTE
// RUN: FileCheck %s --check-prefix=FIX --match-full-lines --input-file=%t1.cu
// RUN: %nvcc -arch=sm_90 -ptx %t1.cu -o - | FileCheck %s --check-prefix=PTX
// RUN: forge-port propose %s --kernel weighted_image --block 32,8 \
// RUN:   --rules=histogram-privatize --apply -o %t2.cu 2>&1 | FileCheck %s --check-prefix=W
// RUN: FileCheck %s --check-prefix=WFIX --input-file=%t2.cu
// RUN: %nvcc -arch=sm_90 -c %t2.cu -o %t2.o
// RUN: forge-port propose %s --kernel transposed --block 32,8 \
// RUN:   --rules=histogram-privatize 2>&1 | FileCheck %s --check-prefix=NO
// RUN: forge-port propose %s --kernel image_levels --block 32,8,2 \
// RUN:   --rules=histogram-privatize 2>&1 | FileCheck %s --check-prefix=LAYERS
// RUN: forge-port propose %s --kernel index_first --block 32,8 \
// RUN:   --rules=histogram-privatize --apply -o %t3.cu 2>&1 | FileCheck %s --check-prefix=FIRST
// RUN: FileCheck %s --check-prefix=FIRSTFIX --input-file=%t3.cu
// RUN: %nvcc -arch=sm_90 -c %t3.cu -o %t3.o
// RUN: forge-port propose %s --kernel index_reassigned --block 32,8 \
// RUN:   --rules=histogram-privatize 2>&1 | FileCheck %s --check-prefix=REASSIGNED

__global__ void image_levels(const unsigned char *img, int width, int height, size_t pitch,
                             unsigned int *levels) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (col < width && row < height) {
    unsigned char px = img[row * pitch + col];
    atomicAdd(levels + (px >> 2), 1u);
  }
}
// NOTE: forge-port: note: applied expert:histogram-privatize: 32 lane copies of the 64 bins per block, laid out [bin][copy] (lane l counts into copy l % 32) for atomicAdd(&levels[(px >> 2)], ...), reading 'img' (unsigned char) in 16-byte loads (16 elements per thread per iteration)
// NOTE: forge-port: note: histogram-privatize: spec: grid.x -> min((ceil_div(W, 32)) * (ceil_div(H, 8)), 132 * FORGE_GRID_WAVES * 8)
// NOTE: forge-port: note: histogram-privatize: spec: grid.y -> 1
// NOTE: forge-port: note: histogram-privatize: spec: why: the loop over the rows that replaces the guard 'col < width && row < height' at line {{[0-9]+}} visits every element for any grid{{.*}}

// FIX:      __global__ void image_levels(const unsigned char *img, int width, int height, size_t pitch,
// FIX-NEXT:                              unsigned int *levels) {
// FIX-NEXT:   __shared__ unsigned int forge_hist[64][32];
// FIX:        __syncthreads();
// FIX-NEXT:   {
// FIX-NEXT:     auto forge_e = [&](unsigned char forge_v0) {
// FIX-NEXT:       unsigned char px = forge_v0;
// FIX-NEXT:       atomicAdd(&forge_hist[(px >> 2)][forge_w], 1u);
// FIX-NEXT:     };
// FIX-NEXT:     const long long forge_n = width;
// FIX-NEXT:     const long long forge_rows = height;
// FIX-NEXT:     const long long forge_steps = (forge_n + 16 - 1) / 16 + 1;
// FIX:          if ((long long)(((1) * pitch + 0) - ((0) * pitch + 0)) == forge_n) {
// FIX-NEXT:       const long long forge_nn = forge_rows * forge_n;
// FIX-NEXT:       const unsigned char *forge_f0 = img + ((0) * pitch + 0);
// FIX-NEXT:       long long forge_h = (long long)((16 - ((unsigned long long)forge_f0 & 15)) & 15) / 1;
// FIX-NEXT:       forge_h = forge_h < forge_nn ? forge_h : forge_nn;
// FIX-NEXT:       long long forge_m = (forge_nn - forge_h) / 16;
// FIX:            for (long long forge_k = forge_g; forge_k < forge_m; forge_k += forge_s) {
// FIX-NEXT:         const uint4 forge_q0_0 = reinterpret_cast<const uint4 *>(forge_f0 + forge_h)[forge_k];
// FIX:            for (long long forge_i = forge_h + forge_m * 16 + forge_g; forge_i < forge_nn; forge_i += forge_s)
// FIX-NEXT:         forge_e(forge_f0[forge_i]);
// FIX-NEXT:     } else {
// FIX-NEXT:       const long long forge_dy = forge_s / forge_steps, forge_dk = forge_s % forge_steps;
// FIX-NEXT:       for (long long forge_y = forge_g / forge_steps, forge_k = forge_g % forge_steps; forge_y < forge_rows;) {
// FIX-NEXT:         const unsigned char *forge_p0 = img + ((forge_y) * pitch + 0);
// FIX-NEXT:         long long forge_h = (long long)((16 - ((unsigned long long)forge_p0 & 15)) & 15) / 1;
// FIX-NEXT:         forge_h = forge_h < forge_n ? forge_h : forge_n;
// FIX-NEXT:         const long long forge_a = forge_h + (forge_k - 1) * 16;
// FIX-NEXT:         if (forge_k == 0) {
// FIX-NEXT:           for (long long forge_i = 0; forge_i < forge_h; ++forge_i)
// FIX-NEXT:             forge_e(forge_p0[forge_i]);
// FIX-NEXT:         } else if (forge_a + 16 <= forge_n) {
// FIX-NEXT:           const uint4 forge_q0_0 = reinterpret_cast<const uint4 *>(forge_p0 + forge_a)[0];
// FIX-NEXT:           forge_e((unsigned char)forge_q0_0.x);
// FIX:              } else {
// FIX-NEXT:           for (long long forge_i = forge_a; forge_i < forge_n && forge_i < forge_a + 16; ++forge_i)
// FIX-NEXT:             forge_e(forge_p0[forge_i]);
// FIX-NEXT:         }
// FIX-NEXT:         forge_k += forge_dk;
// FIX-NEXT:         forge_y += forge_dy;
// FIX-NEXT:         if (forge_k >= forge_steps) {
// FIX-NEXT:           forge_k -= forge_steps;
// FIX-NEXT:           ++forge_y;
// FIX-NEXT:         }
// FIX-NEXT:       }
// FIX-NEXT:     }
// FIX-NEXT:   }
// FIX-NEXT:   __syncthreads();

// The pixels come in 16-byte loads.
// PTX: ld.global.v4.u32

__global__ void weighted_image(const unsigned char *img, const float *w, float *hist, int width,
                               int height, size_t pitch) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row >= height || col >= width)
    return;
  int at = row * width + col;
  atomicAdd(&hist[img[row * pitch + col] >> 4], w[at]);
}
// W: applied expert:histogram-privatize: 32 lane copies of the 16 bins per block{{.*}}, reading 'img' (unsigned char), 'w' (float) in 16-byte loads (16 elements per thread per iteration)
// WFIX-NOT: {{^}}  int at =
// WFIX:      {{^}}    auto forge_e = [&](unsigned char forge_v0, float forge_v1) {
// WFIX-NEXT: {{^}}    atomicAdd(&forge_hist[forge_v0 >> 4][forge_w], forge_v1);
// WFIX:      {{^}}    if ((long long)(((1) * pitch + 0) - ((0) * pitch + 0)) == forge_n && (long long)(((1) * width + 0) - ((0) * width + 0)) == forge_n) {
// WFIX:      {{^}}      if (forge_m < 0 || ((unsigned long long)(forge_f1 + forge_h) & 15) != 0)
// WFIX:      {{^}}        const uint4 forge_q1_3 = reinterpret_cast<const uint4 *>(forge_f1 + forge_h)[forge_k * 4 + 3];
// WFIX:      {{^}}        const unsigned char *forge_p0 = img + ((forge_y) * pitch + 0);
// WFIX-NEXT: {{^}}        const float *forge_p1 = w + ((forge_y) * width + 0);
// WFIX:      {{^}}        } else if (forge_a + 16 <= forge_n && ((unsigned long long)(forge_p1 + forge_a) & 15) == 0) {
// WFIX:      {{^}}          const uint4 forge_q1_3 = reinterpret_cast<const uint4 *>(forge_p1 + forge_a)[3];
// WFIX:      {{^}}          forge_e((unsigned char)(forge_q0_0.w >> 24), __uint_as_float(forge_q1_3.w));
// WFIX-NOT: {{^}}    return;

__global__ void transposed(const unsigned char *img, unsigned *hist, int width, int height) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < width && y < height)
    atomicAdd(&hist[img[x * height + y]], 1u);
}
// NO: No 16-byte loads: 'img[x * height + y]' is not read at 'row * pitch + column'

// LAYERS: No 16-byte loads: the block's z extent is not known to be 1

// The index computed before the guard, as many image kernels write it (the
// exit form, 16-bit pixels, a size_t index): it is read only inside the
// guarded code, so it is computed there, and goes with the column and row.
__global__ void index_first(const unsigned short *img, unsigned *hist, int w, int h, int stride) {
  const int x = threadIdx.x + blockIdx.x * blockDim.x;
  const int y = threadIdx.y + blockIdx.y * blockDim.y;
  const size_t idx = (size_t)y * stride + x;
  if (x >= w || y >= h) return;
  unsigned short v = img[idx];
  atomicAdd(&hist[v >> 8], 1u);
}
// FIRST: applied expert:histogram-privatize: {{.*}}reading 'img' (unsigned short) in 16-byte loads (8 elements per thread per iteration)
// FIRSTFIX-LABEL: {{^}}__global__ void index_first(
// FIRSTFIX-NOT:   {{[i]dx}}
// FIRSTFIX:       {{^}}        const unsigned short *forge_p0 = img + ((size_t)(forge_y) * stride + 0);
// FIRSTFIX-NOT:   {{[i]dx}}
// FIRSTFIX-LABEL: {{^}}__global__ void index_reassigned(

// Assigned after its declaration: its value at the guard is not its
// initialiser, so nothing moves.
__global__ void index_reassigned(const unsigned char *img, unsigned *hist, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  int idx = y * w + x;
  idx += w;
  if (x < w && y < h)
    atomicAdd(&hist[img[idx]], 1u);
}
// REASSIGNED: No 16-byte loads: 'x' is read outside the element's code
