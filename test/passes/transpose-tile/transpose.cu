// REQUIRES: cuda
// The naive transpose with the spec's 32 x 8 blocks: both sides go through a
// padded 32 x 33 tile; threads stride over the tile's 1024 elements and
// blocks over the tiles, and the spec launches one tile per block.
// RUN: forge-port propose %s --spec %S/Inputs/transpose.json --rules=transpose-tile \
// RUN:   > %t.props 2> %t.notes
// RUN: FileCheck %s --check-prefix=WHY --input-file=%t.props
// RUN: forge-port propose %s --spec %S/Inputs/transpose.json --rules=transpose-tile \
// RUN:   --apply -o %t.cu
// RUN: FileCheck %s --check-prefix=FIX --match-full-lines --input-file=%t.cu
// RUN: %nvcc -arch=sm_90 -ptx %t.cu -o - | FileCheck %s --check-prefix=PTX
// WHY: # expert:transpose-tile: transpose 'in' into 'out' through a 32 x 32 shared-memory tile
// WHY: (load coalesced, store strided by rows)
// WHY: # spec: grid.y -> ceil_div((ceil_div(R, 8)) * 8, 32)
// WHY: # spec: why: the tiled kernel walks 32 x 32 tiles with a grid stride, so it is correct for any grid; a 32 x 8 block covered 32 x 8 elements, so one tile per block scales the grid by 32/32 along x and 8/32 along y
// PTX: .shared .align 4 .b8 {{.*}}forge_tile[4224];
// PTX: ld.global.f32
// PTX: st.shared.f32
// PTX: bar.sync
// PTX: ld.shared.f32
// PTX: st.global.f32

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
// FIX-NEXT:   // bank conflicts. Threads stride over a tile's elements and blocks over the tiles,
// FIX-NEXT:   // so any block shape and any grid work.
// FIX-NEXT:   __shared__ float forge_tile[32][32 + 1];
// FIX-NEXT:   const unsigned forge_t = (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
// FIX-NEXT:   const unsigned forge_threads = blockDim.x * blockDim.y * blockDim.z;
// FIX-NEXT:   for (long long forge_y0 = 32 * (long long)blockIdx.y; forge_y0 < rows; forge_y0 += 32 * (long long)gridDim.y) {
// FIX-NEXT:     for (long long forge_x0 = 32 * (long long)blockIdx.x; forge_x0 < cols; forge_x0 += 32 * (long long)gridDim.x) {
// FIX-NEXT:       #pragma unroll 4
// FIX-NEXT:       for (unsigned forge_e = forge_t; forge_e < 32 * 32; forge_e += forge_threads) {
// FIX-NEXT:         const long long x = forge_x0 + forge_e % 32, y = forge_y0 + forge_e / 32;
// FIX-NEXT:         if (x < cols && y < rows)
// FIX-NEXT:           forge_tile[forge_e / 32][forge_e % 32] = in[y * cols + x];
// FIX-NEXT:       }
// FIX-NEXT:       __syncthreads();
// FIX-NEXT:       #pragma unroll 4
// FIX-NEXT:       for (unsigned forge_e = forge_t; forge_e < 32 * 32; forge_e += forge_threads) {
// FIX-NEXT:         const long long x = forge_x0 + forge_e / 32, y = forge_y0 + forge_e % 32;
// FIX-NEXT:         if (x < cols && y < rows)
// FIX-NEXT:           out[x * rows + y] = forge_tile[forge_e % 32][forge_e / 32];
// FIX-NEXT:       }
// FIX-NEXT:       __syncthreads();
// FIX-NEXT:     }
// FIX-NEXT:   }
// FIX-NEXT: }
