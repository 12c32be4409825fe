// REQUIRES: cuda
// Transposes whose index runs backwards along its fast position (the
// model's coefficient -1 on x or y): a rotation by 90 degrees (the store
// backwards), one by 270 degrees written as a gather over the output (the
// load backwards, reads strided), a transpose of the image flipped left to
// right (the load backwards, reads coalesced), the anti-transpose (the store
// backwards along both positions), with its 64 x 64 tile, the rotation with
// its guard written on the reversed index, with positions written with
// constants (the original body for other blocks), over a 1D grid (a flat
// index) and with a loop over the tile's rows (NVIDIA's naive transpose). The tiles are the same;
// only the lanes' addresses descend. Each rewrite compiles. Then the
// refusals: a stride of -2, a reversal that is not of the swapped position
// (a rotation by 180 degrees, no transpose), and the reversal in unsigned
// arithmetic.
// RUN: forge-port propose %s --kernel rotate90 --block 32,8 --rules=transpose-tile > %t.props
// RUN: FileCheck %s --check-prefix=WHY --input-file=%t.props
// RUN: forge-port propose %s --kernel rotate90 --block 32,8 --rules=transpose-tile --apply -o %t.1.cu
// RUN: FileCheck %s --check-prefix=ROT90 --match-full-lines --input-file=%t.1.cu
// RUN: %nvcc -arch=sm_90 -c %t.1.cu -o %t.1.o
// RUN: forge-port propose %s --kernel rotate270 --block 16,16 --rules=transpose-tile --apply -o %t.2.cu
// RUN: FileCheck %s --check-prefix=ROT270 --match-full-lines --input-file=%t.2.cu
// RUN: %nvcc -arch=sm_90 -c %t.2.cu -o %t.2.o
// RUN: forge-port propose %s --kernel flip_x --block 32,8 --rules=transpose-tile --apply -o %t.3.cu
// RUN: FileCheck %s --check-prefix=FLIPX --match-full-lines --input-file=%t.3.cu
// RUN: %nvcc -arch=sm_90 -c %t.3.cu -o %t.3.o
// RUN: forge-port propose %s --kernel anti_transpose --block 32,8 --rules=transpose-tile --apply -o %t.4.cu
// RUN: FileCheck %s --check-prefix=ANTI --match-full-lines --input-file=%t.4.cu
// RUN: %nvcc -arch=sm_90 -c %t.4.cu -o %t.4.o
// RUN: forge-port propose %s --kernel anti_transpose --block 32,8 --rules=transpose-tile --format=json > %t.4.json
// RUN: %python %S/../../Inputs/apply_proposal.py %t.4.json 1 %s > %t.4.64.cu
// RUN: FileCheck %s --check-prefix=ANTI64 --match-full-lines --input-file=%t.4.64.cu
// RUN: %nvcc -arch=sm_90 -c %t.4.64.cu -o %t.4.64.o
// RUN: forge-port propose %s --kernel rotate90_ry --block 32,8 --rules=transpose-tile --apply -o %t.5.cu
// RUN: FileCheck %s --check-prefix=RY --match-full-lines --input-file=%t.5.cu
// RUN: %nvcc -arch=sm_90 -c %t.5.cu -o %t.5.o
// RUN: forge-port propose %s --kernel rotate90_fixed --block 32,8 --rules=transpose-tile --apply -o %t.6.cu
// RUN: FileCheck %s --check-prefix=FIXED --match-full-lines --input-file=%t.6.cu
// RUN: %nvcc -arch=sm_90 -c %t.6.cu -o %t.6.o
// RUN: forge-port propose %s --kernel flat_rotate90 --block 256 --rules=transpose-tile --apply -o %t.7.cu
// RUN: FileCheck %s --check-prefix=FLAT --match-full-lines --input-file=%t.7.cu
// RUN: %nvcc -arch=sm_90 -c %t.7.cu -o %t.7.o
// RUN: forge-port propose %s --kernel rows_rotate90 --block 32,8 --rules=transpose-tile --apply -o %t.8.cu
// RUN: FileCheck %s --check-prefix=ROWS --match-full-lines --input-file=%t.8.cu
// RUN: %nvcc -arch=sm_90 -c %t.8.cu -o %t.8.o
// RUN: not forge-port propose %s --kernel stride_m2 --block 32,8 --rules=transpose-tile 2>&1 | FileCheck %s --check-prefix=M2
// RUN: not forge-port propose %s --kernel rotate180 --block 32,8 --rules=transpose-tile 2>&1 | FileCheck %s --check-prefix=R180
// RUN: not forge-port propose %s --kernel rotate90_unsigned --block 32,8 --rules=transpose-tile 2>&1 | FileCheck %s --check-prefix=UNS
// RUN: not forge-port propose %s --kernel stride_m2 --block 32,8 --rules=transpose-tile 2>/dev/null | count 0

// WHY: # expert:transpose-tile: transpose 'in' into 'out' through a 32 x 32 shared-memory tile
// WHY: (load coalesced, store strided by h)
// WHY-SAME: The index of 'out' runs backwards along y (coefficient -1): the tile is written with the lanes' addresses descending, still one segment per warp.
// WHY: # expert:transpose-tile: transpose 'in' into 'out' through a 64 x 64 shared-memory tile

__global__ void rotate90(const float *in, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) out[x * h + (h - 1 - y)] = in[y * w + x];
}
// The tiles cover the positions as for a transpose, [x0, x0 + 32) x [y0, y0 + 32),
// under the same guard; on the reversed side a tile is the output's columns
// h - y0 - 32 .. h - 1 - y0 of each row x, its lanes' addresses descending.
// ROT90:      __global__ void rotate90(const float *in, float *out, int w, int h) {
// ROT90:        // 'out' runs backwards along y: its lanes write consecutive elements downwards, still
// ROT90-NEXT:   // one segment per warp.
// ROT90:        const bool forge_fast = blockDim.x == 32 && blockDim.y == 8 && blockDim.z == 1;
// ROT90-NEXT:   for (long long forge_y0 = 32 * (long long)blockIdx.y; forge_y0 < h; forge_y0 += 32 * (long long)gridDim.y) {
// ROT90-NEXT:     for (long long forge_x0 = 32 * (long long)blockIdx.x; forge_x0 < w; forge_x0 += 32 * (long long)gridDim.x) {
// ROT90-NEXT:       const bool forge_full = forge_x0 + 31 < w && forge_y0 + 31 < h;
// ROT90:              const long long forge_at = forge_py * w + forge_px, forge_step = w;
// ROT90:            __syncthreads();
// ROT90:              const long long forge_px = forge_x0 + threadIdx.y, forge_py = forge_y0 + threadIdx.x;
// ROT90-NEXT:         const long long forge_at = forge_px * h - forge_py + h - 1, forge_step = h;
// ROT90:                  out[forge_at + 8 * forge_r * forge_step] = forge_tile[threadIdx.x][threadIdx.y + 8 * forge_r];
// ROT90:                const long long x = forge_px + 8 * forge_r, y = forge_py;
// ROT90-NEXT:           if (x < w && y < h)
// ROT90-NEXT:             out[forge_at + 8 * forge_r * forge_step] = forge_tile[threadIdx.x][threadIdx.y + 8 * forge_r];
// ROT90:              const long long x = forge_x0 + forge_e / 32, y = forge_y0 + forge_e % 32;
// ROT90-NEXT:         if (x < w && y < h)
// ROT90-NEXT:           out[x * h - y + h - 1] = forge_tile[forge_e % 32][forge_e / 32];

// Threads over the output (w rows of h): the load runs backwards along y.
__global__ void rotate270(const double *in, double *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < h && y < w) out[y * h + x] = in[x * w + (w - 1 - y)];
}
// ROT270:      __global__ void rotate270(const double *in, double *out, int w, int h) {
// ROT270:        // 'in' runs backwards along y: its lanes read consecutive elements downwards, still
// ROT270-NEXT:   // one segment per warp.
// ROT270:        __shared__ double forge_tile[32][32 + 1];
// ROT270:              const long long forge_px = forge_x0 + threadIdx.y, forge_py = forge_y0 + threadIdx.x;
// ROT270-NEXT:         const long long forge_at = forge_px * w - forge_py + w - 1, forge_step = w;
// ROT270:                  forge_tile[threadIdx.y + 8 * forge_r][threadIdx.x] = in[forge_at + 8 * forge_r * forge_step];
// ROT270:              const long long x = forge_x0 + forge_e / 32, y = forge_y0 + forge_e % 32;
// ROT270-NEXT:         if (x < h && y < w)
// ROT270-NEXT:           forge_tile[forge_e / 32][forge_e % 32] = in[x * w - y + w - 1];
// ROT270:              const long long forge_px = forge_x0 + threadIdx.x, forge_py = forge_y0 + threadIdx.y;
// ROT270-NEXT:         const long long forge_at = forge_py * h + forge_px, forge_step = h;
// ROT270:              const long long x = forge_x0 + forge_e % 32, y = forge_y0 + forge_e / 32;
// ROT270-NEXT:         if (x < h && y < w)
// ROT270-NEXT:           out[y * h + x] = forge_tile[forge_e % 32][forge_e / 32];

__global__ void flip_x(const float *in, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) out[x * h + y] = in[y * w + (w - 1 - x)];
}
// FLIPX:      __global__ void flip_x(const float *in, float *out, int w, int h) {
// FLIPX:        // 'in' runs backwards along x: its lanes read consecutive elements downwards, still
// FLIPX-NEXT:   // one segment per warp.
// FLIPX:              const long long forge_px = forge_x0 + threadIdx.x, forge_py = forge_y0 + threadIdx.y;
// FLIPX-NEXT:         const long long forge_at = forge_py * w - forge_px + w - 1, forge_step = w;
// FLIPX:                  forge_tile[threadIdx.y + 8 * forge_r][threadIdx.x] = in[forge_at + 8 * forge_r * forge_step];
// FLIPX:              const long long x = forge_x0 + forge_e % 32, y = forge_y0 + forge_e / 32;
// FLIPX-NEXT:         if (x < w && y < h)
// FLIPX-NEXT:           forge_tile[forge_e / 32][forge_e % 32] = in[y * w - x + w - 1];
// FLIPX:              const long long forge_at = forge_px * h + forge_py, forge_step = h;
// FLIPX:                out[x * h + y] = forge_tile[forge_e % 32][forge_e / 32];

__global__ void anti_transpose(const float *in, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) out[(w - 1 - x) * h + (h - 1 - y)] = in[y * w + x];
}
// Backwards along both positions: the rows of the tile step back by h.
// ANTI:      __global__ void anti_transpose(const float *in, float *out, int w, int h) {
// ANTI:        // 'out' runs backwards along y: its lanes write consecutive elements downwards, still
// ANTI-NEXT:   // one segment per warp.
// ANTI:              const long long forge_at = -forge_px * h - forge_py + (long long)w * h - 1, forge_step = -h;
// ANTI:                  out[forge_at + 8 * forge_r * forge_step] = forge_tile[threadIdx.x][threadIdx.y + 8 * forge_r];
// ANTI:                out[-x * h - y + (long long)w * h - 1] = forge_tile[forge_e % 32][forge_e / 32];
// Two elements per lane and row: the second is 32 elements back in 'out'
// (and 32 on in 'in').
// ANTI64:      __global__ void anti_transpose(const float *in, float *out, int w, int h) {
// ANTI64:        __shared__ float forge_tile[64][64 + 1];
// ANTI64:                  forge_tile[threadIdx.y + 8 * forge_r][threadIdx.x + 32 * forge_c] = in[forge_at + 8 * forge_r * forge_step + 32 * forge_c];
// ANTI64:                  out[forge_at + 8 * forge_r * forge_step - 32 * forge_c] = forge_tile[threadIdx.x + 32 * forge_c][threadIdx.y + 8 * forge_r];
// ANTI64:                    const long long x = forge_px + 8 * forge_r, y = forge_py + 32 * forge_c;
// ANTI64-NEXT:               if (x < w && y < h)
// ANTI64-NEXT:                 out[forge_at + 8 * forge_r * forge_step - 32 * forge_c] = forge_tile[threadIdx.x + 32 * forge_c][threadIdx.y + 8 * forge_r];

// The guard written on the reversed index: ry >= 0 bounds y from above.
__global__ void rotate90_ry(const float *in, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  int ry = h - 1 - y;
  if (x < w && ry >= 0)
    out[x * h + ry] = in[y * w + x];
}
// RY:      __global__ void rotate90_ry(const float *in, float *out, int w, int h) {
// RY:        for (long long forge_y0 = 32 * (long long)blockIdx.y; forge_y0 < h; forge_y0 += 32 * (long long)gridDim.y) {
// RY:            const bool forge_full = forge_x0 + 31 < w && -forge_y0 + h - 32 >= 0;
// RY:                  if (x < w && -y + h - 1 >= 0)
// RY-NEXT:               forge_tile[threadIdx.y + 8 * forge_r][threadIdx.x] = in[forge_at + 8 * forge_r * forge_step];
// RY:            __syncthreads();
// RY:                  if (x < w && -y + h - 1 >= 0)
// RY-NEXT:               out[forge_at + 8 * forge_r * forge_step] = forge_tile[threadIdx.x][threadIdx.y + 8 * forge_r];

// Positions written with the block's size: the original body for other blocks.
__global__ void rotate90_fixed(const float *in, float *out, int w, int h) {
  int x = blockIdx.x * 32 + threadIdx.x;
  int y = blockIdx.y * 8 + threadIdx.y;
  if (x < w && y < h) out[x * h + (h - 1 - y)] = in[y * w + x];
}
// FIXED:      __global__ void rotate90_fixed(const float *in, float *out, int w, int h) {
// FIXED:        // The kernel's positions assume blockDim.x == 32 and blockDim.y == 8; with another block it runs as written.
// FIXED-NEXT:   if (blockDim.x != 32 || blockDim.y != 8) {
// FIXED-NEXT:     int x = blockIdx.x * 32 + threadIdx.x;
// FIXED-NEXT:     int y = blockIdx.y * 8 + threadIdx.y;
// FIXED-NEXT:     if (x < w && y < h) out[x * h + (h - 1 - y)] = in[y * w + x];
// FIXED-NEXT:     return;
// FIXED-NEXT:   }
// FIXED:        const bool forge_fast = blockDim.x == 32 && blockDim.y == 8 && blockDim.z == 1;
// FIXED:              const long long forge_at = forge_px * h - forge_py + h - 1, forge_step = h;

// Over a 1D grid: the flat index t split into the row r and the column c.
__global__ void flat_rotate90(const float *in, float *out, int rows, int cols) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t < rows * cols) {
    int r = t / cols, c = t % cols;
    out[c * rows + (rows - 1 - r)] = in[t];
  }
}
// FLAT:      __global__ void flat_rotate90(const float *in, float *out, int rows, int cols) {
// FLAT:        // 'out' runs backwards along r: its lanes write consecutive elements downwards, still
// FLAT-NEXT:   // one segment per warp.
// FLAT:        const bool forge_fast = blockDim.x == 256 && blockDim.y == 1 && blockDim.z == 1;
// FLAT:            const long long forge_at = forge_py * cols + forge_px, forge_step = cols;
// FLAT:            const long long forge_at = forge_px * rows - forge_py + rows - 1, forge_step = rows;

// NVIDIA's naive transpose, rotated: the loop walks the tile's rows.
#define TILE_DIM 32
#define BLOCK_ROWS 8
__global__ void rows_rotate90(float *odata, const float *idata) {
  int x = blockIdx.x * TILE_DIM + threadIdx.x;
  int y = blockIdx.y * TILE_DIM + threadIdx.y;
  int width = gridDim.x * TILE_DIM;
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
    odata[x * width + (width - 1 - (y + j))] = idata[(y + j) * width + x];
}
// ROWS:      __global__ void rows_rotate90(float *odata, const float *idata) {
// ROWS:        // 'odata' runs backwards along forge_y: its lanes write consecutive elements downwards, still
// ROWS-NEXT:   // one segment per warp.
// ROWS:        if (blockDim.x != 32 || blockDim.y != 8) {
// ROWS:              const long long forge_at = 32 * forge_px * gridDim.x - forge_py + 32 * (long long)gridDim.x - 1, forge_step = 32 * (long long)gridDim.x;
// ROWS:                  odata[forge_at + 8 * forge_r * forge_step] = forge_tile[threadIdx.x][threadIdx.y + 8 * forge_r];

// A stride of -2 along y: no unit stride, so the model sees no transpose.
__global__ void stride_m2(const float *in, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) out[x * 2 * h + (2 * h - 2 - 2 * y)] = in[y * w + x];
}
// M2: forge-port: note: transpose-tile: not applicable: the model recognises no transpose

// Reversed along x, the load's own position: a rotation by 180 degrees, no transpose.
__global__ void rotate180(const float *in, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) out[(h - 1 - y) * w + (w - 1 - x)] = in[y * w + x];
}
// R180: forge-port: note: transpose-tile: not applicable: the model recognises no transpose

// h - 1 - y in unsigned arithmetic (the rewrite's is 64-bit and signed).
__global__ void rotate90_unsigned(const float *in, float *out, unsigned w, unsigned h) {
  unsigned x = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) out[x * h + (h - 1 - y)] = in[y * w + x];
}
// UNS: forge-port: note: transpose-tile: not applicable: the index of 'out[x * h + (h - 1 - y)]' is computed in unsigned arithmetic and may wrap around
