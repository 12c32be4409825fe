// REQUIRES: cuda
// Transposes over a 1D grid: the flat index t = blockIdx.x * blockDim.x +
// threadIdx.x split into the row t / cols and the column t % cols (the
// model's flat split). The rewrite keeps the kernel's 1D launch: the blocks
// of the original grid take the 32 x 32 (or 64 x 64) tiles in turn, a
// block of 32 * R threads is 32 x R for the fast path (other blocks take
// the generic loop), and the element guard is the kernel's over (r, c)
// plus the column's range c < cols. Other spellings (doubles and size_t
// with the names of the row and the column swapped, the store-coalesced
// way round on shorts, a grid-stride loop, a constant block size) and the
// refusals follow. Each result compiles.
// RUN: forge-port propose %s --kernel transpose_flat --block 256 --rules=transpose-tile > %t.props
// RUN: FileCheck %s --check-prefix=WHY --implicit-check-not="# spec:" --input-file=%t.props
// RUN: forge-port propose %s --kernel transpose_flat --block 256 --rules=transpose-tile --apply -o %t.cu
// RUN: forge-port propose %s --spec %S/Inputs/flat.json --rules=transpose-tile 2>&1 | FileCheck %s --check-prefix=GRID
// RUN: FileCheck %s --check-prefix=FIX --match-full-lines --input-file=%t.cu
// RUN: %nvcc -arch=sm_90 -ptx %t.cu -o - | FileCheck %s --check-prefix=PTX
// RUN: forge-port propose %s --kernel transpose_flat --block 256 --rules=transpose-tile --format=json > %t.json
// RUN: %python %S/../../Inputs/apply_proposal.py %t.json 1 %s > %t.64.cu
// RUN: FileCheck %s --check-prefix=BIG --match-full-lines --input-file=%t.64.cu
// RUN: %nvcc -arch=sm_90 -ptx %t.64.cu -o - | FileCheck %s --check-prefix=PTX64
// RUN: forge-port propose %s --kernel t_swapped --block 128 --rules=transpose-tile --apply -o %t.1.cu
// RUN: FileCheck %s --check-prefix=SWAP --match-full-lines --input-file=%t.1.cu
// RUN: %nvcc -arch=sm_90 -c %t.1.cu -o %t.1.o
// RUN: forge-port propose %s --kernel t_store --block 96 --rules=transpose-tile --apply -o %t.2.cu
// RUN: FileCheck %s --check-prefix=STORE --match-full-lines --input-file=%t.2.cu
// RUN: %nvcc -arch=sm_90 -c %t.2.cu -o %t.2.o
// RUN: forge-port propose %s --kernel t_loop --block 1024 --rules=transpose-tile --apply -o %t.3.cu
// RUN: FileCheck %s --check-prefix=LOOP --match-full-lines --input-file=%t.3.cu
// RUN: %nvcc -arch=sm_90 -c %t.3.cu -o %t.3.o
// RUN: forge-port propose %s --kernel t_const --block 256 --rules=transpose-tile --apply -o %t.4.cu
// RUN: FileCheck %s --check-prefix=CONST --match-full-lines --input-file=%t.4.cu
// RUN: %nvcc -arch=sm_90 -c %t.4.cu -o %t.4.o
// RUN: not forge-port propose %s --kernel no_rowlen --block 256 --rules=transpose-tile 2>&1 | FileCheck %s --check-prefix=ROWLEN
// RUN: not forge-port propose %s --kernel no_value --block 256 --rules=transpose-tile 2>&1 | FileCheck %s --check-prefix=VALUE
// RUN: not forge-port propose %s --kernel no_inplace --block 256 --rules=transpose-tile 2>&1 | FileCheck %s --check-prefix=INPLACE
// RUN: not forge-port propose %s --kernel no_divisor --block 256 --rules=transpose-tile 2>&1 | FileCheck %s --check-prefix=DIVISOR
// RUN: not forge-port propose %s --kernel no_offset --block 256 --rules=transpose-tile 2>&1 | FileCheck %s --check-prefix=OFFSET
// RUN: not forge-port propose %s --kernel no_guard --block 256 --rules=transpose-tile 2>&1 | FileCheck %s --check-prefix=NOGUARD
// RUN: not forge-port propose %s --kernel no_blockloop --block 256 --rules=transpose-tile 2>&1 | FileCheck %s --check-prefix=BLOCKLOOP
// RUN: not forge-port propose %s --kernel no_rowlen --block 256 --rules=transpose-tile 2>/dev/null | count 0
// WHY: # expert:transpose-tile: transpose 'in' into 'out' through a 32 x 32 shared-memory tile
// WHY: # The naive transpose out[c * rows + r] = in[t] makes one of its two accesses with the lanes of a warp a row apart (load coalesced, store strided by rows): {{.*}} With a 1D 256-thread (32 x 8) block (checked on the device) each thread moves 4 elements per phase {{.*}} Each element is loaded and stored under the original guard (r * cols + c < (long long)cols * rows && c < cols, over the flat index's row and column) {{.*}} The 1D launch stays 1D: its blocks take the tiles in turn (a block-stride loop over the tiles), and blocks beyond the last tile return at once.
// WHY: # expert:transpose-tile: transpose 'in' into 'out' through a 64 x 64 shared-memory tile
// WHY: # The naive transpose {{.*}} each thread moves 16 elements per phase
// PTX: .shared .align 4 .b8 {{.*}}forge_tile[4224];
// PTX: ld.global.f32
// PTX: st.shared.f32
// PTX: bar.sync
// PTX: ld.shared.f32
// PTX: st.global.f32
// PTX64: .shared .align 4 .b8 {{.*}}forge_tile[16640];
// PTX64: bar.sync

// With the spec's geometry, about one block per tile (any grid is correct).
// GRID: # expert:transpose-tile: transpose 'in' into 'out' through a 32 x 32 shared-memory tile
// GRID: The grid is shrunk to about one block per tile
// GRID: # spec: grid.x -> ceil_div((ceil_div(R * C, 256)) * 256, 1024)
// GRID: # expert:transpose-tile: transpose 'in' into 'out' through a 64 x 64 shared-memory tile
// GRID: # spec: grid.x -> ceil_div((ceil_div(R * C, 256)) * 256, 4096)
__global__ void transpose_flat(const float *in, float *out, int rows, int cols) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t < rows * cols) {
    int r = t / cols;
    int c = t % cols;
    out[c * rows + r] = in[t];
  }
}
// FIX:      __global__ void transpose_flat(const float *in, float *out, int rows, int cols) {
// FIX-NEXT:   // transpose-tile: 'in' reaches 'out' through 32 x 32 tiles in shared memory. A
// FIX-NEXT:   // tile is loaded along c (coalesced reads of 'in') and stored along r
// FIX-NEXT:   // (coalesced writes of 'out'); the padding column keeps its column reads free of
// FIX-NEXT:   // bank conflicts. The kernel's flat index t = blockIdx.x * blockDim.x + threadIdx.x is
// FIX-NEXT:   // the element (t / cols, t % cols); the blocks of the 1D grid take the tiles in turn, so
// FIX-NEXT:   // any grid works (blocks beyond the last tile have none).
// FIX-NEXT:   // A block of 256 threads (32 x 8) moves 4 elements per thread and phase, unrolled, with the
// FIX-NEXT:   // indices hoisted (and no guard on the tiles inside the bounds); other blocks stride
// FIX-NEXT:   // over the tile's elements.
// FIX-NEXT:   __shared__ float forge_tile[32][32 + 1];
// FIX-NEXT:   const unsigned forge_t = (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
// FIX-NEXT:   const unsigned forge_threads = blockDim.x * blockDim.y * blockDim.z;
// FIX-NEXT:   const bool forge_fast = blockDim.x == 256 && blockDim.y == 1 && blockDim.z == 1;
// FIX-NEXT:   const unsigned forge_lane = threadIdx.x % 32, forge_row = threadIdx.x / 32;
// FIX-NEXT:   const long long forge_tiles_x = (cols + 31LL) / 32, forge_tiles_y = (rows + 31LL) / 32;
// FIX-NEXT:   const long long forge_tiles = forge_tiles_x > 0 && forge_tiles_y > 0 ? forge_tiles_x * forge_tiles_y : 0;
// FIX-NEXT:   for (long long forge_k = blockIdx.x; forge_k < forge_tiles; forge_k += gridDim.x) {
// FIX-NEXT:     const long long forge_x0 = 32 * (forge_k % forge_tiles_x), forge_y0 = 32 * (forge_k / forge_tiles_x);
// FIX-NEXT:     const bool forge_full = forge_y0 * cols + forge_x0 + 31 * (long long)cols + 31 < (long long)cols * rows && forge_x0 + 31 < cols;
// FIX-NEXT:     if (forge_fast) {
// FIX-NEXT:       const long long forge_px = forge_x0 + forge_lane, forge_py = forge_y0 + forge_row;
// FIX-NEXT:       const long long forge_at = forge_py * cols + forge_px, forge_step = cols;
// FIX-NEXT:       if (forge_full) {
// FIX-NEXT:         #pragma unroll
// FIX-NEXT:         for (int forge_r = 0; forge_r < 4; ++forge_r) {
// FIX-NEXT:           forge_tile[forge_row + 8 * forge_r][forge_lane] = in[forge_at + 8 * forge_r * forge_step];
// FIX-NEXT:         }
// FIX-NEXT:       } else {
// FIX-NEXT:         #pragma unroll
// FIX-NEXT:         for (int forge_r = 0; forge_r < 4; ++forge_r) {
// FIX-NEXT:           const long long c = forge_px, r = forge_py + 8 * forge_r;
// FIX-NEXT:           if (r * cols + c < (long long)cols * rows && c < cols)
// FIX-NEXT:             forge_tile[forge_row + 8 * forge_r][forge_lane] = in[forge_at + 8 * forge_r * forge_step];
// FIX-NEXT:         }
// FIX-NEXT:       }
// FIX-NEXT:     } else {
// FIX-NEXT:       #pragma unroll 4
// FIX-NEXT:       for (unsigned forge_e = forge_t; forge_e < 32 * 32; forge_e += forge_threads) {
// FIX-NEXT:         const long long c = forge_x0 + forge_e % 32, r = forge_y0 + forge_e / 32;
// FIX-NEXT:         if (r * cols + c < (long long)cols * rows && c < cols)
// FIX-NEXT:           forge_tile[forge_e / 32][forge_e % 32] = in[r * cols + c];
// FIX-NEXT:       }
// FIX-NEXT:     }
// FIX-NEXT:     __syncthreads();
// FIX-NEXT:     if (forge_fast) {
// FIX-NEXT:       const long long forge_px = forge_x0 + forge_row, forge_py = forge_y0 + forge_lane;
// FIX-NEXT:       const long long forge_at = forge_px * rows + forge_py, forge_step = rows;
// FIX-NEXT:       if (forge_full) {
// FIX-NEXT:         #pragma unroll
// FIX-NEXT:         for (int forge_r = 0; forge_r < 4; ++forge_r) {
// FIX-NEXT:           out[forge_at + 8 * forge_r * forge_step] = forge_tile[forge_lane][forge_row + 8 * forge_r];
// FIX-NEXT:         }
// FIX-NEXT:       } else {
// FIX-NEXT:         #pragma unroll
// FIX-NEXT:         for (int forge_r = 0; forge_r < 4; ++forge_r) {
// FIX-NEXT:           const long long c = forge_px + 8 * forge_r, r = forge_py;
// FIX-NEXT:           if (r * cols + c < (long long)cols * rows && c < cols)
// FIX-NEXT:             out[forge_at + 8 * forge_r * forge_step] = forge_tile[forge_lane][forge_row + 8 * forge_r];
// FIX-NEXT:         }
// FIX-NEXT:       }
// FIX-NEXT:     } else {
// FIX-NEXT:       #pragma unroll 4
// FIX-NEXT:       for (unsigned forge_e = forge_t; forge_e < 32 * 32; forge_e += forge_threads) {
// FIX-NEXT:         const long long c = forge_x0 + forge_e / 32, r = forge_y0 + forge_e % 32;
// FIX-NEXT:         if (r * cols + c < (long long)cols * rows && c < cols)
// FIX-NEXT:           out[c * rows + r] = forge_tile[forge_e % 32][forge_e / 32];
// FIX-NEXT:       }
// FIX-NEXT:     }
// FIX-NEXT:     __syncthreads();
// FIX-NEXT:   }
// FIX-NEXT: }
// BIG:      __global__ void transpose_flat(const float *in, float *out, int rows, int cols) {
// BIG:        __shared__ float forge_tile[64][64 + 1];
// BIG:        const bool forge_fast = blockDim.x == 256 && blockDim.y == 1 && blockDim.z == 1;
// BIG-NEXT:   const unsigned forge_lane = threadIdx.x % 32, forge_row = threadIdx.x / 32;
// BIG-NEXT:   const long long forge_tiles_x = (cols + 63LL) / 64, forge_tiles_y = (rows + 63LL) / 64;
// BIG:          const long long forge_x0 = 64 * (forge_k % forge_tiles_x), forge_y0 = 64 * (forge_k / forge_tiles_x);
// BIG-NEXT:     const bool forge_full = forge_y0 * cols + forge_x0 + 63 * (long long)cols + 63 < (long long)cols * rows && forge_x0 + 63 < cols;
// BIG:                  forge_tile[forge_row + 8 * forge_r][forge_lane + 32 * forge_c] = in[forge_at + 8 * forge_r * forge_step + 32 * forge_c];
// BIG:                out[c * rows + r] = forge_tile[forge_e % 64][forge_e / 64];

// Doubles, size_t, the load through the split, the names of the row and
// the column swapped (c = t / cols is the row), an early exit and a scale;
// 128-thread blocks are 32 x 4 for the fast path.
__global__ void t_swapped(const double *in, double *out, double s, int rows, int cols) {
  size_t t = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (t >= (size_t)rows * cols)
    return;
  size_t c = t / cols, r = t % cols;
  out[r * rows + c] = s * in[c * cols + r];
}
// SWAP:      __global__ void t_swapped(const double *in, double *out, double s, int rows, int cols) {
// SWAP:        __shared__ double forge_tile[32][32 + 1];
// SWAP:        const bool forge_fast = blockDim.x == 128 && blockDim.y == 1 && blockDim.z == 1;
// SWAP:              const long long r = forge_px, c = forge_py + 4 * forge_r;
// SWAP-NEXT:         if (c * cols + r < (long long)cols * rows && r < cols)
// SWAP-NEXT:           forge_tile[forge_row + 4 * forge_r][forge_lane] = in[forge_at + 4 * forge_r * forge_step];
// SWAP:              out[forge_at + 4 * forge_r * forge_step] = s * forge_tile[forge_lane][forge_row + 4 * forge_r];
// SWAP:              out[r * rows + c] = s * forge_tile[forge_e % 32][forge_e / 32];

// The store-coalesced way round (thread t writes out[t], element
// (t / rows, t % rows) of out): the tile is loaded along i, the row of
// 'out', which is contiguous in 'in'. Shorts; 96-thread blocks are no
// 32 x 2^k block, so the fast path stays 256 threads and they take the
// generic loop.
__global__ void t_store(const short *in, short *out, int rows, int cols) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t < rows * cols) {
    int i = t / rows, j = t % rows;
    out[t] = in[j * cols + i];
  }
}
// STORE:      __global__ void t_store(const short *in, short *out, int rows, int cols) {
// STORE:        // tile is loaded along i (coalesced reads of 'in') and stored along j
// STORE:        __shared__ short forge_tile[32][32 + 1];
// STORE:        const bool forge_fast = blockDim.x == 256 && blockDim.y == 1 && blockDim.z == 1;
// STORE:        const long long forge_tiles_x = (rows + 31LL) / 32, forge_tiles_y = (cols + 31LL) / 32;
// STORE:            const long long forge_at = forge_px * cols + forge_py, forge_step = cols;
// STORE:              const long long j = forge_x0 + forge_e / 32, i = forge_y0 + forge_e % 32;
// STORE-NEXT:         if (i * rows + j < (long long)rows * cols && j < rows)
// STORE-NEXT:           forge_tile[forge_e / 32][forge_e % 32] = in[j * cols + i];
// STORE:              out[i * rows + j] = forge_tile[forge_e % 32][forge_e / 32];

// A grid-stride loop over the flat index: the tiles replace the loop, whose
// bound joins the element guard. 1024-thread blocks are 32 x 32.
__global__ void t_loop(const long long *in, long long *out, int rows, int cols) {
  for (int t = blockIdx.x * blockDim.x + threadIdx.x; t < rows * cols;
       t += blockDim.x * gridDim.x) {
    int r = t / cols, c = t % cols;
    out[c * rows + r] = in[t];
  }
}
// LOOP:      __global__ void t_loop(const long long *in, long long *out, int rows, int cols) {
// LOOP:        // bank conflicts. The kernel's grid-stride loop over t = blockIdx.x * blockDim.x + threadIdx.x visits
// LOOP-NEXT:   // the elements (t / cols, t % cols); the blocks of the 1D grid take the tiles in turn, so
// LOOP:        const bool forge_fast = blockDim.x == 1024 && blockDim.y == 1 && blockDim.z == 1;
// LOOP:          for (int forge_r = 0; forge_r < 1; ++forge_r) {
// LOOP:              const long long c = forge_x0 + forge_e % 32, r = forge_y0 + forge_e / 32;
// LOOP-NEXT:         if (r * cols + c < (long long)rows * cols && c < cols)
// LOOP-NEXT:           forge_tile[forge_e / 32][forge_e % 32] = in[r * cols + c];
// LOOP:              out[c * rows + r] = forge_tile[forge_e % 32][forge_e / 32];

// The flat index written with a constant block size is the thread's
// element only for 256-thread blocks: other blocks run the original body.
__global__ void t_const(const float *in, float *out, int rows, int cols) {
  int t = blockIdx.x * 256 + threadIdx.x;
  if (t < rows * cols) {
    int r = t / cols, c = t % cols;
    out[c * rows + r] = in[t];
  }
}
// CONST:      __global__ void t_const(const float *in, float *out, int rows, int cols) {
// CONST:        // The kernel's flat index assumes blockDim.x == 256; with another block it runs as written.
// CONST-NEXT:   if (blockDim.x != 256) {
// CONST-NEXT:     int t = blockIdx.x * 256 + threadIdx.x;
// CONST:            out[c * rows + r] = in[t];
// CONST:          return;
// CONST-NEXT:   }
// CONST-NEXT:   __shared__ float forge_tile[32][32 + 1];
// CONST:        const bool forge_fast = blockDim.x == 256 && blockDim.y == 1 && blockDim.z == 1;

// Refusals.
// The split's rows (cols elements) are not the rows of 'in' (rows apart):
// t is not the element's index in either matrix.
__global__ void no_rowlen(const float *in, float *out, int rows, int cols) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t < rows * cols) {
    int r = t / cols, c = t % cols;
    out[c * rows + r] = in[r * rows + c];
  }
}
// ROWLEN: forge-port: note: transpose-tile: not applicable: the flat index blockIdx.x * blockDim.x + threadIdx.x is split into rows of 'cols' elements, but the rows of 'in[r * rows + c]' are 'rows' elements apart: the split is not the layout of 'in'

// The stored value uses the column.
__global__ void no_value(const float *in, float *out, int rows, int cols) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t < rows * cols) {
    int r = t / cols, c = t % cols;
    out[c * rows + r] = in[t] * c;
  }
}
// VALUE: forge-port: note: transpose-tile: not applicable: the stored value uses 'c', which varies between threads

// In place (one buffer read and written): the model sees no transpose.
__global__ void no_inplace(float *a, int n) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t < n * n)
    a[(t % n) * n + t / n] = a[t];
}
// INPLACE: forge-port: note: transpose-tile: not applicable: the model recognises no transpose

// The quotient and the remainder by different divisors: no split.
__global__ void no_divisor(const float *in, float *out, int rows, int cols) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t < rows * cols)
    out[(t % rows) * rows + t / cols] = in[t];
}
// DIVISOR: forge-port: note: transpose-tile: not applicable: the model recognises no transpose

// The flat index is not the thread's position (an offset).
__global__ void no_offset(const float *in, float *out, int rows, int cols, int first) {
  int t = first + blockIdx.x * blockDim.x + threadIdx.x;
  if (t < rows * cols)
    out[(t % cols) * rows + t / cols] = in[t];
}
// OFFSET: forge-port: note: transpose-tile: not applicable: the flat index 'blockIdx.x * blockDim.x + threadIdx.x + first' is not the thread's position (blockIdx.x * blockDim.x + threadIdx.x, or blockIdx.x * C + threadIdx.x)

// No bound on the flat index.
__global__ void no_guard(const float *in, float *out, int rows, int cols) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  out[(t % cols) * rows + t / cols] = in[t];
}
// NOGUARD: forge-port: note: transpose-tile: not applicable: the store 'out[(t % cols) * rows + t / cols]' is not guarded: the tiles at the edges need a bound on the flat index (t < rows * cols)

// A block-stride loop (one block does all): not the 1D launch's split.
__global__ void no_blockloop(const float *in, float *out, int rows, int cols) {
  for (int t = threadIdx.x; t < rows * cols; t += blockDim.x)
    out[(t % cols) * rows + t / cols] = in[t];
}
// BLOCKLOOP: forge-port: note: transpose-tile: not applicable: the loop over 't' (line [[@LINE-3]]) is not a grid-stride loop over the flat index
