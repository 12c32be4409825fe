// REQUIRES: cuda
// The naive transpose with the spec's 32 x 8 blocks: both sides go through a
// padded 32 x 33 tile (first proposal) or 64 x 65 tile (second). 32 x 8
// blocks take the fast path (unrolled rows, hoisted 64-bit indices, the
// guard only on edge tiles); other blocks stride over the tile's elements;
// blocks stride over the tiles, and the spec launches one tile per block.
// RUN: forge-port propose %s --spec %S/Inputs/transpose.json --rules=transpose-tile \
// RUN:   > %t.props 2> %t.notes
// RUN: FileCheck %s --check-prefix=WHY --input-file=%t.props
// RUN: forge-port propose %s --spec %S/Inputs/transpose.json --rules=transpose-tile \
// RUN:   --apply -o %t.cu
// RUN: FileCheck %s --check-prefix=FIX --match-full-lines --input-file=%t.cu
// RUN: %nvcc -arch=sm_90 -ptx %t.cu -o - | FileCheck %s --check-prefix=PTX
// RUN: forge-port propose %s --spec %S/Inputs/transpose.json --rules=transpose-tile \
// RUN:   --format=json > %t.json
// RUN: %python %S/../../Inputs/apply_proposal.py %t.json 1 %s > %t.64.cu
// RUN: FileCheck %s --check-prefix=BIG --match-full-lines --input-file=%t.64.cu
// RUN: %nvcc -arch=sm_90 -ptx %t.64.cu -o - | FileCheck %s --check-prefix=PTX64
// WHY: # expert:transpose-tile: transpose 'in' into 'out' through a 32 x 32 shared-memory tile
// WHY: (load coalesced, store strided by rows)
// WHY: # spec: grid.y -> ceil_div((ceil_div(R, 8)) * 8, 32)
// WHY: # spec: why: the tiled kernel walks 32 x 32 tiles with a grid stride, so it is correct for any grid; a 32 x 8 block covered 32 x 8 elements, so one tile per block scales the grid by 32/32 along x and 8/32 along y
// WHY: # expert:transpose-tile: transpose 'in' into 'out' through a 64 x 64 shared-memory tile
// WHY: each thread moves 16 elements per phase in an unrolled loop
// WHY: # spec: grid.x -> ceil_div((ceil_div(C, 32)) * 32, 64)
// WHY: # spec: grid.y -> ceil_div((ceil_div(R, 8)) * 8, 64)
// PTX: .shared .align 4 .b8 {{.*}}forge_tile[4224];
// PTX: ld.global.f32
// PTX: st.shared.f32
// PTX: bar.sync
// PTX: ld.shared.f32
// PTX: st.global.f32
// PTX64: .shared .align 4 .b8 {{.*}}forge_tile[16640];
// PTX64: bar.sync

__global__ void transpose(const float *in, float *out, int rows, int cols) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < cols && y < rows)
    out[x * rows + y] = in[y * cols + x];
}
// FIX:      __global__ void transpose(const float *in, float *out, int rows, int cols) {
// FIX-NEXT:   // transpose-tile: 'in' reaches 'out' through 32 x 32 tiles in shared memory. A
// FIX-NEXT:   // tile is loaded along x (coalesced reads of 'in') and stored along y
// FIX-NEXT:   // (coalesced writes of 'out'); the padding column keeps its column reads free of
// FIX-NEXT:   // bank conflicts. Blocks stride over the tiles, so any grid works.
// FIX-NEXT:   // A 32 x 8 block moves 4 elements per thread and phase, unrolled, with the
// FIX-NEXT:   // indices hoisted (and no guard on the tiles inside the bounds); other blocks stride
// FIX-NEXT:   // over the tile's elements.
// FIX-NEXT:   __shared__ float forge_tile[32][32 + 1];
// FIX-NEXT:   const unsigned forge_t = (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
// FIX-NEXT:   const unsigned forge_threads = blockDim.x * blockDim.y * blockDim.z;
// FIX-NEXT:   const bool forge_fast = blockDim.x == 32 && blockDim.y == 8 && blockDim.z == 1;
// FIX-NEXT:   for (long long forge_y0 = 32 * (long long)blockIdx.y; forge_y0 < rows; forge_y0 += 32 * (long long)gridDim.y) {
// FIX-NEXT:     for (long long forge_x0 = 32 * (long long)blockIdx.x; forge_x0 < cols; forge_x0 += 32 * (long long)gridDim.x) {
// FIX-NEXT:       const bool forge_full = forge_x0 + 31 < cols && forge_y0 + 31 < rows;
// FIX-NEXT:       if (forge_fast) {
// FIX-NEXT:         const long long forge_px = forge_x0 + threadIdx.x, forge_py = forge_y0 + threadIdx.y;
// FIX-NEXT:         const long long forge_at = forge_py * cols + forge_px, forge_step = cols;
// FIX-NEXT:         if (forge_full) {
// FIX-NEXT:           #pragma unroll
// FIX-NEXT:           for (int forge_r = 0; forge_r < 4; ++forge_r) {
// FIX-NEXT:             forge_tile[threadIdx.y + 8 * forge_r][threadIdx.x] = in[forge_at + 8 * forge_r * forge_step];
// FIX-NEXT:           }
// FIX-NEXT:         } else {
// FIX-NEXT:           #pragma unroll
// FIX-NEXT:           for (int forge_r = 0; forge_r < 4; ++forge_r) {
// FIX-NEXT:             const long long x = forge_px, y = forge_py + 8 * forge_r;
// FIX-NEXT:             if (x < cols && y < rows)
// FIX-NEXT:               forge_tile[threadIdx.y + 8 * forge_r][threadIdx.x] = in[forge_at + 8 * forge_r * forge_step];
// FIX-NEXT:           }
// FIX-NEXT:         }
// FIX-NEXT:       } else {
// FIX-NEXT:         #pragma unroll 4
// FIX-NEXT:         for (unsigned forge_e = forge_t; forge_e < 32 * 32; forge_e += forge_threads) {
// FIX-NEXT:           const long long x = forge_x0 + forge_e % 32, y = forge_y0 + forge_e / 32;
// FIX-NEXT:           if (x < cols && y < rows)
// FIX-NEXT:             forge_tile[forge_e / 32][forge_e % 32] = in[y * cols + x];
// FIX-NEXT:         }
// FIX-NEXT:       }
// FIX-NEXT:       __syncthreads();
// FIX-NEXT:       if (forge_fast) {
// FIX-NEXT:         const long long forge_px = forge_x0 + threadIdx.y, forge_py = forge_y0 + threadIdx.x;
// FIX-NEXT:         const long long forge_at = forge_px * rows + forge_py, forge_step = rows;
// FIX-NEXT:         if (forge_full) {
// FIX-NEXT:           #pragma unroll
// FIX-NEXT:           for (int forge_r = 0; forge_r < 4; ++forge_r) {
// FIX-NEXT:             out[forge_at + 8 * forge_r * forge_step] = forge_tile[threadIdx.x][threadIdx.y + 8 * forge_r];
// FIX-NEXT:           }
// FIX-NEXT:         } else {
// FIX-NEXT:           #pragma unroll
// FIX-NEXT:           for (int forge_r = 0; forge_r < 4; ++forge_r) {
// FIX-NEXT:             const long long x = forge_px + 8 * forge_r, y = forge_py;
// FIX-NEXT:             if (x < cols && y < rows)
// FIX-NEXT:               out[forge_at + 8 * forge_r * forge_step] = forge_tile[threadIdx.x][threadIdx.y + 8 * forge_r];
// FIX-NEXT:           }
// FIX-NEXT:         }
// FIX-NEXT:       } else {
// FIX-NEXT:         #pragma unroll 4
// FIX-NEXT:         for (unsigned forge_e = forge_t; forge_e < 32 * 32; forge_e += forge_threads) {
// FIX-NEXT:           const long long x = forge_x0 + forge_e / 32, y = forge_y0 + forge_e % 32;
// FIX-NEXT:           if (x < cols && y < rows)
// FIX-NEXT:             out[x * rows + y] = forge_tile[forge_e % 32][forge_e / 32];
// FIX-NEXT:         }
// FIX-NEXT:       }
// FIX-NEXT:       __syncthreads();
// FIX-NEXT:     }
// FIX-NEXT:   }
// FIX-NEXT: }
// BIG:      __global__ void transpose(const float *in, float *out, int rows, int cols) {
// BIG-NEXT:   // transpose-tile: 'in' reaches 'out' through 64 x 64 tiles in shared memory. A
// BIG-NEXT:   // tile is loaded along x (coalesced reads of 'in') and stored along y
// BIG-NEXT:   // (coalesced writes of 'out'); the padding column keeps its column reads free of
// BIG-NEXT:   // bank conflicts. Blocks stride over the tiles, so any grid works.
// BIG-NEXT:   // A 32 x 8 block moves 16 elements per thread and phase, unrolled, with the
// BIG-NEXT:   // indices hoisted (and no guard on the tiles inside the bounds); other blocks stride
// BIG-NEXT:   // over the tile's elements.
// BIG-NEXT:   __shared__ float forge_tile[64][64 + 1];
// BIG-NEXT:   const unsigned forge_t = (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
// BIG-NEXT:   const unsigned forge_threads = blockDim.x * blockDim.y * blockDim.z;
// BIG-NEXT:   const bool forge_fast = blockDim.x == 32 && blockDim.y == 8 && blockDim.z == 1;
// BIG-NEXT:   for (long long forge_y0 = 64 * (long long)blockIdx.y; forge_y0 < rows; forge_y0 += 64 * (long long)gridDim.y) {
// BIG-NEXT:     for (long long forge_x0 = 64 * (long long)blockIdx.x; forge_x0 < cols; forge_x0 += 64 * (long long)gridDim.x) {
// BIG-NEXT:       const bool forge_full = forge_x0 + 63 < cols && forge_y0 + 63 < rows;
// BIG-NEXT:       if (forge_fast) {
// BIG-NEXT:         const long long forge_px = forge_x0 + threadIdx.x, forge_py = forge_y0 + threadIdx.y;
// BIG-NEXT:         const long long forge_at = forge_py * cols + forge_px, forge_step = cols;
// BIG-NEXT:         if (forge_full) {
// BIG-NEXT:           #pragma unroll
// BIG-NEXT:           for (int forge_r = 0; forge_r < 8; ++forge_r) {
// BIG-NEXT:             #pragma unroll
// BIG-NEXT:             for (int forge_c = 0; forge_c < 2; ++forge_c) {
// BIG-NEXT:               forge_tile[threadIdx.y + 8 * forge_r][threadIdx.x + 32 * forge_c] = in[forge_at + 8 * forge_r * forge_step + 32 * forge_c];
// BIG-NEXT:             }
// BIG-NEXT:           }
// BIG-NEXT:         } else {
// BIG-NEXT:           #pragma unroll
// BIG-NEXT:           for (int forge_r = 0; forge_r < 8; ++forge_r) {
// BIG-NEXT:             #pragma unroll
// BIG-NEXT:             for (int forge_c = 0; forge_c < 2; ++forge_c) {
// BIG-NEXT:               const long long x = forge_px + 32 * forge_c, y = forge_py + 8 * forge_r;
// BIG-NEXT:               if (x < cols && y < rows)
// BIG-NEXT:                 forge_tile[threadIdx.y + 8 * forge_r][threadIdx.x + 32 * forge_c] = in[forge_at + 8 * forge_r * forge_step + 32 * forge_c];
// BIG-NEXT:             }
// BIG-NEXT:           }
// BIG-NEXT:         }
// BIG-NEXT:       } else {
// BIG-NEXT:         #pragma unroll 4
// BIG-NEXT:         for (unsigned forge_e = forge_t; forge_e < 64 * 64; forge_e += forge_threads) {
// BIG-NEXT:           const long long x = forge_x0 + forge_e % 64, y = forge_y0 + forge_e / 64;
// BIG-NEXT:           if (x < cols && y < rows)
// BIG-NEXT:             forge_tile[forge_e / 64][forge_e % 64] = in[y * cols + x];
// BIG-NEXT:         }
// BIG-NEXT:       }
// BIG-NEXT:       __syncthreads();
// BIG-NEXT:       if (forge_fast) {
// BIG-NEXT:         const long long forge_px = forge_x0 + threadIdx.y, forge_py = forge_y0 + threadIdx.x;
// BIG-NEXT:         const long long forge_at = forge_px * rows + forge_py, forge_step = rows;
// BIG-NEXT:         if (forge_full) {
// BIG-NEXT:           #pragma unroll
// BIG-NEXT:           for (int forge_r = 0; forge_r < 8; ++forge_r) {
// BIG-NEXT:             #pragma unroll
// BIG-NEXT:             for (int forge_c = 0; forge_c < 2; ++forge_c) {
// BIG-NEXT:               out[forge_at + 8 * forge_r * forge_step + 32 * forge_c] = forge_tile[threadIdx.x + 32 * forge_c][threadIdx.y + 8 * forge_r];
// BIG-NEXT:             }
// BIG-NEXT:           }
// BIG-NEXT:         } else {
// BIG-NEXT:           #pragma unroll
// BIG-NEXT:           for (int forge_r = 0; forge_r < 8; ++forge_r) {
// BIG-NEXT:             #pragma unroll
// BIG-NEXT:             for (int forge_c = 0; forge_c < 2; ++forge_c) {
// BIG-NEXT:               const long long x = forge_px + 8 * forge_r, y = forge_py + 32 * forge_c;
// BIG-NEXT:               if (x < cols && y < rows)
// BIG-NEXT:                 out[forge_at + 8 * forge_r * forge_step + 32 * forge_c] = forge_tile[threadIdx.x + 32 * forge_c][threadIdx.y + 8 * forge_r];
// BIG-NEXT:             }
// BIG-NEXT:           }
// BIG-NEXT:         }
// BIG-NEXT:       } else {
// BIG-NEXT:         #pragma unroll 4
// BIG-NEXT:         for (unsigned forge_e = forge_t; forge_e < 64 * 64; forge_e += forge_threads) {
// BIG-NEXT:           const long long x = forge_x0 + forge_e / 64, y = forge_y0 + forge_e % 64;
// BIG-NEXT:           if (x < cols && y < rows)
// BIG-NEXT:             out[x * rows + y] = forge_tile[forge_e % 64][forge_e / 64];
// BIG-NEXT:         }
// BIG-NEXT:       }
// BIG-NEXT:       __syncthreads();
// BIG-NEXT:     }
// BIG-NEXT:   }
// BIG-NEXT: }
