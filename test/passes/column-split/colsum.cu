// REQUIRES: cuda
// The issue's column sum: 4096 columns (16 blocks of 256) over 16384 rows,
// far fewer threads than the GPU holds. The loop is split over the warps of
// each block (32 columns per block), the block grows to 1024 through the
// spec's BLOCK, the grid by blockDim.x / 32; 131072 threads are still short
// of the GPU, so 4 blocks along y (grid.y, the new FORGE_COLUMN_BLOCKS)
// share each column too, through __device__ partials and counters.
// RUN: forge-port propose %s --spec %S/Inputs/colsum.json --rules=column-split \
// RUN:   > %t.props 2> %t.notes
// RUN: FileCheck %s --check-prefix=WHY --input-file=%t.props
// WHY: # expert:column-split: the column loop over 'r' split over 32 slices of each block (32 columns per block, partials combined in slice order)
// WHY: # A per-thread column loop over 'r' at line {{[0-9]+}} ('a[(size_t)r * cols + j]', coalesced across the warp) on a launch of 4096 threads (the spec's launch), while the GPU holds 270336 (132 SMs x 2048){{.*}}The floating-point sums are re-associated{{.*}}The block grows from 256 to 1024 threads (32 slices per column) through the spec's tunables (BLOCK = 1024; no launch in this file).
// WHY-SAME: 131072 threads are still fewer than the GPU holds, so 4 blocks along y (the new tunable FORGE_COLUMN_BLOCKS, the spec's grid.y) share each column as well: 524288 threads.
// WHY-NEXT: # spec: grid.x -> (ceil_div(COLS, BLOCK)) * ((BLOCK) / 32)
// WHY-NEXT: # spec: grid.y -> FORGE_COLUMN_BLOCKS
// WHY-NEXT: # spec: new tunable FORGE_COLUMN_BLOCKS in {4, 2, 8, 1}
// WHY-NEXT: # spec: BLOCK = 1024
// WHY-NEXT: # spec: new constraint (BLOCK) % 32 == 0
// WHY-NEXT: # spec: why: each block of the rewritten kernel covers the columns of 32 consecutive threads of the original {{.*}}
//
// RUN: forge-port propose %s --spec %S/Inputs/colsum.json --rules=column-split \
// RUN:   --apply -o %t.cu 2>&1 | FileCheck %s --check-prefix=NOTE
// RUN: FileCheck %s --check-prefix=FIX --match-full-lines --input-file=%t.cu
// RUN: %nvcc -arch=sm_90 -ptx %t.cu -o - | FileCheck %s --check-prefix=PTX
// NOTE: forge-port: note: applied expert:column-split: the column loop over 'r' split over 32 slices of each block (32 columns per block, partials combined in slice order)
// PTX-LABEL: .entry {{.*}}colsum
// PTX: bar.sync
// PTX: atom.shared.add.u32
// PTX: membar.cta
// PTX: membar.gl
// PTX: atom.global.add.u32

__global__ void colsum(const float *a, float *out, int rows, int cols) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= cols) return;
  float s = 0.f;
  for (int r = 0; r < rows; ++r) s += a[(size_t)r * cols + j];
  out[j] = s;
}
// FIX:      // column-split across blocks of colsum: the partials of the blocks along y that share
// FIX-NEXT: // a column, and a counter per column (the block that combines resets it for the next launch).
// FIX-NEXT: __device__ float colsum_s_blocks{{(_2)?}}[1048576];
// FIX-NEXT: __device__ unsigned int colsum_column_arrivals{{(_2)?}}[262144];
// FIX-EMPTY:
// FIX-NEXT: __global__ void colsum(const float *a, float *out, int rows, int cols) {
// FIX-NEXT:   // column-split: a block covers 32 consecutive columns, one per lane, and its
// FIX-NEXT:   // blockDim.x / 32 warps (the slices) share each column's rows; the launch has
// FIX-NEXT:   // blockDim.x / 32 times the blocks along x.
// FIX-NEXT:   if (blockDim.x % 32 != 0 || blockDim.y != 1 || blockDim.z != 1) {
// FIX-NEXT:     // Not whole warps or not a 1D block: the original code, one thread per
// FIX-NEXT:     // column, on the original share of the grid.
// FIX-NEXT:     if (blockIdx.x >= gridDim.x / (blockDim.x >= 32 ? blockDim.x / 32 : 1) || blockIdx.y != 0)
// FIX-NEXT:       return;
// FIX-NEXT:     int j = blockIdx.x * blockDim.x + threadIdx.x;
// FIX-NEXT:     if (j >= cols) return;
// FIX-NEXT:     float s = 0.f;
// FIX-NEXT:     for (int r = 0; r < rows; ++r) s += a[(size_t)r * cols + j];
// FIX-NEXT:     out[j] = s;
// FIX-NEXT:     return;
// FIX-NEXT:   }
// FIX-NEXT:   const int lane = threadIdx.x % 32;
// FIX-NEXT:   const int slice = threadIdx.x / 32;
// FIX-NEXT:   const int slices = blockDim.x / 32;
// FIX-NEXT:   // The original thread of this lane's column: its threadIdx.x, blockIdx.x and gridDim.x.
// FIX-NEXT:   const unsigned int orig_thread = blockIdx.x * 32 + lane;
// FIX-NEXT:   const unsigned int orig_tid = orig_thread % blockDim.x;
// FIX-NEXT:   const unsigned int orig_bid = orig_thread / blockDim.x;
// FIX-NEXT:   const unsigned int orig_grid = gridDim.x / slices;
// FIX-NEXT:   // The gridDim.y blocks along y share each column as well (one share when the
// FIX-NEXT:   // columns or their partials would not fit the __device__ arrays).
// FIX-NEXT:   const unsigned int shares =
// FIX-NEXT:       (unsigned long long)orig_grid * blockDim.x <= 262144ull &&
// FIX-NEXT:       (unsigned long long)orig_grid * blockDim.x * gridDim.y <= 1048576ull ? gridDim.y : 1u;
// FIX-NEXT:   if (blockIdx.y >= shares)
// FIX-NEXT:     return;
// FIX-NEXT:   const int part = blockIdx.y * slices + slice;
// FIX-NEXT:   const int parts = shares * slices;
// FIX-NEXT:   __shared__ float s_part[1024];
// FIX-NEXT:   __shared__ unsigned int arrived[32];
// FIX-NEXT:   if (threadIdx.x < 32)
// FIX-NEXT:     arrived[threadIdx.x] = 0;
// FIX-NEXT:   __syncthreads();
// FIX-NEXT:   if (orig_bid >= orig_grid)
// FIX-NEXT:     return;
// FIX-NEXT:   int j = orig_bid * blockDim.x + orig_tid;
// FIX-NEXT:   if (j >= cols) return;
// FIX-NEXT:   float s = 0.f;
// FIX-NEXT:   {
// FIX-NEXT:     for (int r = part; r < rows; r += parts) s += a[(size_t)r * cols + j];
// FIX-NEXT:     // column-split: the slices' partial results, combined in slice order by the
// FIX-NEXT:     // last slice of this column to finish; the others are done.
// FIX-NEXT:     s_part[threadIdx.x] = s;
// FIX-NEXT:     __threadfence_block();
// FIX-NEXT:     if (atomicAdd(&arrived[lane], 1u) != (unsigned int)slices - 1u)
// FIX-NEXT:       return;
// FIX-NEXT:     __threadfence_block();
// FIX-NEXT:     s = s_part[lane];
// FIX-NEXT:     for (int k = 1; k < slices; ++k)
// FIX-NEXT:       s += s_part[k * 32 + lane];
// FIX-NEXT:     if (shares > 1u) {
// FIX-NEXT:       // column-split across blocks: this block's partial to its slot; the last block of the
// FIX-NEXT:       // column to arrive combines the slots in block order and resets the counter.
// FIX-NEXT:       const unsigned long long slot = (unsigned long long)orig_thread * shares;
// FIX-NEXT:       colsum_s_blocks{{(_2)?}}[slot + blockIdx.y] = s;
// FIX-NEXT:       __threadfence();
// FIX-NEXT:       if (atomicAdd(&colsum_column_arrivals{{(_2)?}}[orig_thread], 1u) != shares - 1u)
// FIX-NEXT:         return;
// FIX-NEXT:       __threadfence();
// FIX-NEXT:       s = *(volatile float *)&colsum_s_blocks{{(_2)?}}[slot];
// FIX-NEXT:       for (unsigned int k = 1; k < shares; ++k)
// FIX-NEXT:         s += *(volatile float *)&colsum_s_blocks{{(_2)?}}[slot + k];
// FIX-NEXT:       colsum_column_arrivals{{(_2)?}}[orig_thread] = 0u;
// FIX-NEXT:     }
// FIX-NEXT:   }
// FIX-NEXT:   out[j] = s;
// FIX-NEXT: }
