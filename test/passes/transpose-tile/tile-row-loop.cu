// REQUIRES: cuda
// Naive transposes whose blocks walk the rows of their tile in a loop, as
// NVIDIA's "An Efficient Matrix Transpose in CUDA C/C++" writes them: the
// row position is blockIdx.y * TILE + threadIdx.y + ROWS * it in the
// model, each block covers a TILE x TILE tile, and the grid is the
// kernel's extent. Each spelling is rewritten to the shared-memory tiles
// with the blog's transposeCoalesced as the fast path, keeping each
// block's coverage (the guard gains x < 32 * gridDim.x && y < 32 *
// gridDim.y; the grid stays), the original body for blocks the kernel was
// not written for, and each result compiles. Then the loops that are not
// such a walk, each with its reason.
// The blog's kernel and one with a bound check are those of the GPU test
// (test/gpu/Inputs/rules/transpose_rows.cu).
// RUN: forge-port propose %S/../../gpu/Inputs/rules/transpose_rows.cu --kernel transposeNaive --block 32,8 --rules=transpose-tile > %t.props
// RUN: FileCheck %s --check-prefix=WHY --input-file=%t.props
// RUN: forge-port propose %S/../../gpu/Inputs/rules/transpose_rows.cu --kernel transposeNaive --block 32,8 --rules=transpose-tile --apply -o %t.1.cu
// RUN: FileCheck %s --check-prefix=NAIVE --match-full-lines --input-file=%t.1.cu
// RUN: %nvcc -arch=sm_90 -c %t.1.cu -o %t.1.o
// RUN: forge-port propose %S/../../gpu/Inputs/rules/transpose_rows.cu --kernel transposeRowsWH --block 32,8 --rules=transpose-tile --apply -o %t.2.cu
// RUN: FileCheck %s --check-prefix=WH --match-full-lines --input-file=%t.2.cu
// RUN: %nvcc -arch=sm_90 -c %t.2.cu -o %t.2.o
// RUN: forge-port propose %s --kernel t_from_ty --block 32,8 --rules=transpose-tile --apply -o %t.3.cu
// RUN: FileCheck %s --check-prefix=FROMTY --match-full-lines --input-file=%t.3.cu
// RUN: %nvcc -arch=sm_90 -c %t.3.cu -o %t.3.o
// RUN: forge-port propose %s --kernel t_iter --block 32,8 --rules=transpose-tile --apply -o %t.4.cu
// RUN: FileCheck %s --check-prefix=ITER --match-full-lines --input-file=%t.4.cu
// RUN: %nvcc -arch=sm_90 -c %t.4.cu -o %t.4.o
// RUN: forge-port propose %s --kernel t_rowvar --block 32,8 --rules=transpose-tile --apply -o %t.5.cu
// RUN: FileCheck %s --check-prefix=ROWVAR --match-full-lines --input-file=%t.5.cu
// RUN: %nvcc -arch=sm_90 -c %t.5.cu -o %t.5.o
// RUN: forge-port propose %s --kernel t_while --block 32,16 --rules=transpose-tile --apply -o %t.6.cu
// RUN: FileCheck %s --check-prefix=WHILE --match-full-lines --input-file=%t.6.cu
// RUN: %nvcc -arch=sm_90 -c %t.6.cu -o %t.6.o
// RUN: not forge-port propose %s --kernel r_param --rules=transpose-tile 2>&1 | FileCheck %s --check-prefix=PARAM
// RUN: not forge-port propose %s --kernel r_overlap --rules=transpose-tile 2>&1 | FileCheck %s --check-prefix=OVERLAP
// RUN: not forge-port propose %s --kernel r_blockdim --rules=transpose-tile 2>&1 | FileCheck %s --check-prefix=BLOCKDIM
// RUN: not forge-port propose %s --kernel r_ragged --rules=transpose-tile 2>&1 | FileCheck %s --check-prefix=RAGGED
// RUN: not forge-port propose %s --kernel r_cols --rules=transpose-tile 2>&1 | FileCheck %s --check-prefix=COLS
// RUN: not forge-port propose %s --kernel r_double_step --rules=transpose-tile 2>&1 | FileCheck %s --check-prefix=DSTEP
// RUN: not forge-port propose %s --kernel r_two --rules=transpose-tile 2>&1 | FileCheck %s --check-prefix=TWO
// RUN: not forge-port propose %s --kernel r_down --rules=transpose-tile 2>&1 | FileCheck %s --check-prefix=DOWN
// RUN: not forge-port propose %s --kernel r_nested --rules=transpose-tile 2>&1 | FileCheck %s --check-prefix=NESTED
// RUN: not forge-port propose %s --kernel r_break --rules=transpose-tile 2>&1 | FileCheck %s --check-prefix=BREAK
// RUN: not forge-port propose %s --kernel r_start --rules=transpose-tile 2>&1 | FileCheck %s --check-prefix=START
// RUN: not forge-port propose %s --kernel r_value --rules=transpose-tile 2>&1 | FileCheck %s --check-prefix=VALUE
// RUN: not forge-port propose %s --kernel r_sync --rules=transpose-tile 2>&1 | FileCheck %s --check-prefix=SYNC
// RUN: not forge-port propose %s --kernel r_param --rules=transpose-tile 2>/dev/null | count 0

#define TILE_DIM 32
#define BLOCK_ROWS 8

// transposeNaive: grid (n / 32, n / 32), block (32, 8), no bound check, the
// width read off the grid.
// Two proposals (32 x 32 and 64 x 64 tiles), no spec change: the grid is
// what the kernel covers.
// WHY: # expert:transpose-tile: transpose 'idata' into 'odata' through a 32 x 32 shared-memory tile
// WHY: # The naive transpose {{.*}} Each block of the kernel covered the 32 x 32 elements its loop over 'j' walked, so the grid is the kernel's extent (x < 32 * (long long)gridDim.x, forge_y < 32 * (long long)gridDim.y) and stays as it is; blocks beyond the tiles find no work. The kernel assumes blockDim.x == 32 and blockDim.y == 8, so other blocks run the original body (checked on the device).
// WHY: # expert:transpose-tile: transpose 'idata' into 'odata' through a 64 x 64 shared-memory tile
// WHY-NOT: # spec:
// NAIVE:      __global__ void transposeNaive(float *odata, const float *idata) {
// NAIVE:        // The kernel's blocks each covered 32 x 32 elements (its loop over 'j' walked the
// NAIVE-NEXT:   // rows), so its grid is its extent: x < 32 * (long long)gridDim.x && forge_y < 32 * (long long)gridDim.y.
// NAIVE:        // The kernel's positions assume blockDim.x == 32 and blockDim.y == 8; with another block it runs as written.
// NAIVE-NEXT:   if (blockDim.x != 32 || blockDim.y != 8) {
// NAIVE-NEXT:     int x = blockIdx.x * TILE_DIM + threadIdx.x;
// NAIVE-NEXT:     int y = blockIdx.y * TILE_DIM + threadIdx.y;
// NAIVE-NEXT:     int width = gridDim.x * TILE_DIM;
// NAIVE-NEXT:     for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
// NAIVE-NEXT:       odata[x * width + (y + j)] = idata[(y + j) * width + x];
// NAIVE-NEXT:     return;
// NAIVE-NEXT:   }
// NAIVE-NEXT:   __shared__ float forge_tile[32][32 + 1];
// NAIVE:        const bool forge_fast = blockDim.x == 32 && blockDim.y == 8 && blockDim.z == 1;
// NAIVE-NEXT:   for (long long forge_y0 = 32 * (long long)blockIdx.y; forge_y0 < 32 * (long long)gridDim.y; forge_y0 += 32 * (long long)gridDim.y) {
// NAIVE-NEXT:     for (long long forge_x0 = 32 * (long long)blockIdx.x; forge_x0 < 32 * (long long)gridDim.x; forge_x0 += 32 * (long long)gridDim.x) {
// NAIVE-NEXT:       const bool forge_full = forge_x0 + 31 < 32 * (long long)gridDim.x && forge_y0 + 31 < 32 * (long long)gridDim.y;
// NAIVE-NEXT:       if (forge_fast) {
// NAIVE-NEXT:         const long long forge_px = forge_x0 + threadIdx.x, forge_py = forge_y0 + threadIdx.y;
// NAIVE-NEXT:         const long long forge_at = 32 * forge_py * gridDim.x + forge_px, forge_step = 32 * (long long)gridDim.x;
// NAIVE-NEXT:         if (forge_full) {
// NAIVE-NEXT:           #pragma unroll
// NAIVE-NEXT:           for (int forge_r = 0; forge_r < 4; ++forge_r) {
// NAIVE-NEXT:             forge_tile[threadIdx.y + 8 * forge_r][threadIdx.x] = idata[forge_at + 8 * forge_r * forge_step];
// NAIVE:                  const long long x = forge_x0 + forge_e % 32, forge_y = forge_y0 + forge_e / 32;
// NAIVE-NEXT:           if (x < 32 * (long long)gridDim.x && forge_y < 32 * (long long)gridDim.y)
// NAIVE-NEXT:             forge_tile[forge_e / 32][forge_e % 32] = idata[32 * forge_y * gridDim.x + x];
// NAIVE:                __syncthreads();
// NAIVE-NEXT:       if (forge_fast) {
// NAIVE-NEXT:         const long long forge_px = forge_x0 + threadIdx.y, forge_py = forge_y0 + threadIdx.x;
// NAIVE-NEXT:         const long long forge_at = 32 * forge_px * gridDim.x + forge_py, forge_step = 32 * (long long)gridDim.x;
// NAIVE:                    odata[forge_at + 8 * forge_r * forge_step] = forge_tile[threadIdx.x][threadIdx.y + 8 * forge_r];
// NAIVE:                    odata[32 * x * gridDim.x + forge_y] = forge_tile[forge_e % 32][forge_e / 32];

// transposeRowsWH: separate sizes, a bound check in the loop and a step of
// blockDim.y: the tiled body for blocks whose rows divide 32.
// WH:      __global__ void transposeRowsWH(float *out, const float *in, int w, int h) {
// WH:        // The kernel's positions assume blockDim.x == 32 and blockDim.y divides 32; with another block it runs as written.
// WH-NEXT:   if (blockDim.x != 32 || 32 % blockDim.y != 0) {
// WH:        const bool forge_fast = blockDim.x == 32 && blockDim.y == 8 && blockDim.z == 1;
// WH:              const bool forge_full = forge_x0 + 31 < 32 * (long long)gridDim.x && forge_y0 + 31 < 32 * (long long)gridDim.y && forge_x0 + 31 < w && forge_y0 + 31 < h;
// WH:                  const long long x = forge_px, forge_y = forge_py + 8 * forge_r;
// WH-NEXT:             if (x < 32 * (long long)gridDim.x && forge_y < 32 * (long long)gridDim.y && x < w && forge_y < h)
// WH-NEXT:               forge_tile[threadIdx.y + 8 * forge_r][threadIdx.x] = in[forge_at + 8 * forge_r * forge_step];
// WH:                    out[x * h + forge_y] = forge_tile[forge_e % 32][forge_e / 32];

// The row variable from threadIdx.y, the row position declared in the loop
// (its name is kept).
__global__ void t_from_ty(float *out, const float *in, int w, int h) {
  int x = blockIdx.x * TILE_DIM + threadIdx.x;
  for (int r = threadIdx.y; r < TILE_DIM; r += BLOCK_ROWS) {
    int y = blockIdx.y * TILE_DIM + r;
    if (x < w && y < h)
      out[x * h + y] = in[y * w + x];
  }
}
// FROMTY:      __global__ void t_from_ty(float *out, const float *in, int w, int h) {
// FROMTY:        if (blockDim.x != 32 || blockDim.y != 8) {
// FROMTY:                  const long long x = forge_x0 + forge_e % 32, y = forge_y0 + forge_e / 32;
// FROMTY-NEXT:           if (x < 32 * (long long)gridDim.x && y < 32 * (long long)gridDim.y && x < w && y < h)
// FROMTY-NEXT:             forge_tile[forge_e / 32][forge_e % 32] = in[y * w + x];

// An iteration count with the rows written k * 8, unsigned positions, an
// early continue, a scaled double value, and the roles swapped (strided
// reads, coalesced writes).
__global__ void t_iter(const double *a, double *b, double s, int n, int m) {
  unsigned i = threadIdx.x + blockIdx.x * 32;
  unsigned j0 = threadIdx.y + blockIdx.y * 32;
  #pragma unroll
  for (int k = 0; k < 4; ++k) {
    unsigned j = j0 + k * 8;
    if (i >= n || j >= m) continue;
    b[(size_t)j * n + i] = s * a[(size_t)i * m + j];
  }
}
// ITER:      __global__ void t_iter(const double *a, double *b, double s, int n, int m) {
// ITER:        if (blockDim.x != 32 || blockDim.y != 8) {
// ITER:        __shared__ double forge_tile[32][32 + 1];
// ITER:                const long long forge_px = forge_x0 + threadIdx.y, forge_py = forge_y0 + threadIdx.x;
// ITER-NEXT:           const long long forge_at = forge_px * m + forge_py, forge_step = m;
// ITER:                  const long long i = forge_x0 + forge_e / 32, j = forge_y0 + forge_e % 32;
// ITER-NEXT:           if (i < 32 * (long long)gridDim.x && j < 32 * (long long)gridDim.y && i < n && j < m)
// ITER-NEXT:             forge_tile[forge_e / 32][forge_e % 32] = a[i * m + j];
// ITER:                    b[j * n + i] = s * forge_tile[forge_e % 32][forge_e / 32];

// The row variable from the row position to 32 past it.
__global__ void t_rowvar(float *out, const float *in, int w, int h) {
  const int x = threadIdx.x + TILE_DIM * blockIdx.x;
  const int y = threadIdx.y + TILE_DIM * blockIdx.y;
  for (int row = y; row < y + TILE_DIM; row += BLOCK_ROWS) {
    if (x >= w || row >= h)
      continue;
    out[(size_t)x * h + row] = in[(size_t)row * w + x];
  }
}
// ROWVAR:      __global__ void t_rowvar(float *out, const float *in, int w, int h) {
// ROWVAR:        if (blockDim.x != 32 || blockDim.y != 8) {
// ROWVAR:                  const long long x = forge_x0 + forge_e % 32, forge_y = forge_y0 + forge_e / 32;
// ROWVAR-NEXT:           if (x < 32 * (long long)gridDim.x && forge_y < 32 * (long long)gridDim.y && x < w && forge_y < h)
// ROWVAR-NEXT:             forge_tile[forge_e / 32][forge_e % 32] = in[forge_y * w + x];

// A while loop from threadIdx.y by blockDim.y, x written with blockDim.x:
// every block covers its tile, so there is no device-side check; the fast
// path takes the request's 32 x 16 block.
__global__ void t_while(float *out, const float *in, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int r = threadIdx.y;
  while (r < 32) {
    int y = blockIdx.y * 32 + r;
    if (x < w && y < h)
      out[x * h + y] = in[y * w + x];
    r += blockDim.y;
  }
}
// WHILE:      __global__ void t_while(float *out, const float *in, int w, int h) {
// WHILE-NOT:    if (blockDim
// WHILE:        __shared__ float forge_tile[32][32 + 1];
// WHILE:        const bool forge_fast = blockDim.x == 32 && blockDim.y == 16 && blockDim.z == 1;
// WHILE-NEXT:   for (long long forge_y0 = 32 * (long long)blockIdx.y; forge_y0 < 32 * (long long)gridDim.y; forge_y0 += 32 * (long long)gridDim.y) {
// WHILE-NEXT:     for (long long forge_x0 = 32 * (long long)blockIdx.x; forge_x0 < (long long)blockDim.x * gridDim.x; forge_x0 += 32 * (long long)gridDim.x) {

#define TILE 32
// The trip count is a parameter's.
__global__ void r_param(const float *in, float *out, int w, int h, int tile) {
  int x = blockIdx.x * TILE + threadIdx.x;
  int y = blockIdx.y * TILE + threadIdx.y;
  for (int j = 0; j < tile; j += 8)
    if (x < w && y + j < h)
      out[x * h + y + j] = in[(y + j) * w + x];
}
// PARAM: forge-port: note: transpose-tile: not applicable: the loop over 'j' (line [[@LINE-4]]) has no constant trip count ('j < tile')

// The blocks are 16 rows apart, the loop walks 32: they overlap.
__global__ void r_overlap(const float *in, float *out, int w, int h) {
  int x = blockIdx.x * TILE + threadIdx.x;
  int y = blockIdx.y * 16 + threadIdx.y;
  for (int j = 0; j < TILE; j += 8)
    if (x < w && y + j < h)
      out[x * h + y + j] = in[(y + j) * w + x];
}
// OVERLAP: forge-port: note: transpose-tile: not applicable: the blocks' stride along y, '16', is not the '32' rows that the loop over 'j' (line [[@LINE-4]]) walks: the blocks' rows would overlap or leave gaps

// blockDim.y rows apart, a loop over 32.
__global__ void r_blockdim(const float *in, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  for (int j = 0; j < TILE; j += 8)
    if (x < w && y + j < h)
      out[x * h + y + j] = in[(y + j) * w + x];
}
// BLOCKDIM: forge-port: note: transpose-tile: not applicable: the blocks' stride along y, 'blockDim.y', is not the '32' rows that the loop over 'j' (line [[@LINE-4]]) walks

// 30 rows per block, but the loop's last step reaches row 31.
__global__ void r_ragged(const float *in, float *out, int w, int h) {
  int x = blockIdx.x * TILE + threadIdx.x;
  int y = blockIdx.y * 30 + threadIdx.y;
  for (int j = 0; j < 30; j += 8)
    if (x < w && y + j < h)
      out[x * h + y + j] = in[(y + j) * w + x];
}
// RAGGED: forge-port: note: transpose-tile: not applicable: the blocks' stride along y, '30', is not the '32' rows that the loop over 'j' (line [[@LINE-4]]) walks

// The loop walks the columns.
__global__ void r_cols(const float *in, float *out, int w, int h) {
  int x = blockIdx.x * TILE + threadIdx.x;
  int y = blockIdx.y * TILE + threadIdx.y;
  for (int j = 0; j < TILE; j += 8)
    if (x + j < w && y < h)
      out[(x + j) * h + y] = in[y * w + x + j];
}
// COLS: forge-port: note: transpose-tile: not applicable: the loop over 'j' (line [[@LINE-4]]) does not move 'in[y * w + x + j]' along the row position (blockIdx.y * TILE + threadIdx.y): its variable is not added to the row

// Two rows of threads per step of blockDim.y: every other row is skipped.
__global__ void r_double_step(const float *in, float *out, int w, int h) {
  int x = blockIdx.x * TILE + threadIdx.x;
  int y = blockIdx.y * TILE + threadIdx.y;
  for (int j = 0; j < TILE / 2; j += blockDim.y)
    if (x < w && y + 2 * j < h)
      out[x * h + y + 2 * j] = in[(y + 2 * j) * w + x];
}
// DSTEP: forge-port: note: transpose-tile: not applicable: the loop over 'j' (line [[@LINE-4]]) moves the row by '2 * blockDim.y' per iteration, neither a positive constant nor blockDim.y

// A second write in the loop.
__global__ void r_two(const float *in, float *out, float *copy, int w, int h) {
  int x = blockIdx.x * TILE + threadIdx.x;
  int y = blockIdx.y * TILE + threadIdx.y;
  for (int j = 0; j < TILE; j += 8)
    if (x < w && y + j < h) {
      out[x * h + y + j] = in[(y + j) * w + x];
      copy[(y + j) * w + x] = 0.f;
    }
}
// TWO: forge-port: note: transpose-tile: not applicable: the kernel also writes 'copy[(y + j) * w + x]' (line [[@LINE-3]]); only a kernel that is one transpose is tiled

// Counting down.
__global__ void r_down(const float *in, float *out, int w, int h) {
  int x = blockIdx.x * TILE + threadIdx.x;
  int y = blockIdx.y * TILE + threadIdx.y;
  for (int j = 24; j >= 0; j -= 8)
    if (x < w && y + j < h)
      out[x * h + y + j] = in[(y + j) * w + x];
}
// DOWN: forge-port: note: transpose-tile: not applicable: the loop over 'j' (line [[@LINE-4]]) steps by '-8', neither a positive constant nor blockDim.y

// Two loops.
__global__ void r_nested(const float *in, float *out, int w, int h) {
  int x = blockIdx.x * TILE + threadIdx.x;
  int y = blockIdx.y * TILE + threadIdx.y;
  for (int i = 0; i < 1; ++i)
    for (int j = 0; j < TILE; j += 8)
      if (x < w && y + j < h)
        out[x * h + y + j] = in[(y + j) * w + x];
}
// NESTED: forge-port: note: transpose-tile: not applicable: the kernel has 2 loops (lines [[@LINE-5]], [[@LINE-4]]); a loop is tiled only where it is the kernel's one loop and walks the rows of each block's tile

// Left early: the rows after the break are not covered.
__global__ void r_break(const float *in, float *out, int w, int h) {
  int x = blockIdx.x * TILE + threadIdx.x;
  int y = blockIdx.y * TILE + threadIdx.y;
  for (int j = 0; j < TILE; j += 8) {
    if (y + j >= h) break;
    if (x < w)
      out[x * h + y + j] = in[(y + j) * w + x];
  }
}
// BREAK: forge-port: note: transpose-tile: not applicable: the loop over 'j' (line [[@LINE-6]]) may be left early (break, return); its rows are not known

// Starts at a parameter, by blockDim.y.
__global__ void r_start(const float *in, float *out, int w, int h, int s) {
  int x = blockIdx.x * TILE + threadIdx.x;
  int y = blockIdx.y * TILE + threadIdx.y;
  for (int j = s; j < TILE; j += blockDim.y)
    if (x < w && y + j < h)
      out[x * h + y + j] = in[(y + j) * w + x];
}
// START: forge-port: note: transpose-tile: not applicable: the loop over 'j' (line [[@LINE-4]]) starts at 's', neither a constant nor threadIdx.y plus a constant, and its trip count is not constant

// The stored value uses the loop's variable.
__global__ void r_value(const float *in, float *out, int w, int h) {
  int x = blockIdx.x * TILE + threadIdx.x;
  int y = blockIdx.y * TILE + threadIdx.y;
  for (int j = 0; j < TILE; j += 8)
    if (x < w && y + j < h)
      out[x * h + y + j] = in[(y + j) * w + x] + j;
}
// VALUE: forge-port: note: transpose-tile: not applicable: the stored value uses 'j'

// A barrier in the loop.
__global__ void r_sync(const float *in, float *out, int w, int h) {
  int x = blockIdx.x * TILE + threadIdx.x;
  int y = blockIdx.y * TILE + threadIdx.y;
  for (int j = 0; j < TILE; j += 8) {
    if (x < w && y + j < h)
      out[x * h + y + j] = in[(y + j) * w + x];
    __syncthreads();
  }
}
// SYNC: forge-port: note: transpose-tile: not applicable: the loop over 'j' (line [[@LINE-6]]) synchronises the block; the kernel is already tiled
