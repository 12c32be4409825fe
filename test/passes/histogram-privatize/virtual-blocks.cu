// REQUIRES: cuda
// One element per thread and no grid-stride loop: a guard that bounds
// blockIdx ('col < width && row < height', 'if (i >= n) return;') makes the
// body a function of the block index, run by every block for the blocks of
// the original grid that the guard admits (x fastest), so the grid is
// capped at FORGE_GRID_WAVES waves and each block flushes its private bins
// once for many (VirtualBlocks.h, shared with hierarchical-reduction).
// image_levels' pixels come in 16-byte loads row by row first (rows.cu);
// its third proposal is the scalar copy over virtual blocks.
// RUN: forge-port propose %s --kernel image_levels --spec %S/Inputs/image-levels.json \
// RUN:   --rules=histogram-privatize 2>&1 | FileCheck %s --check-prefix=NOTE
// RUN: forge-port propose %s --kernel image_levels --spec %S/Inputs/image-levels.json \
// RUN:   --rules=histogram-privatize --format=json > %t1.json
// RUN: %python %S/../../Inputs/apply_proposal.py %t1.json 2 %s > %t.cu
// RUN: FileCheck %s --check-prefix=FIX --match-full-lines --input-file=%t.cu
// RUN: %nvcc -arch=sm_90 -c %t.cu -o %t.o
// pair_bins' 4-byte keys come in 16-byte loads first (vector.cu); its third
// proposal is the scalar copy over virtual blocks.
// RUN: forge-port propose %s --kernel pair_bins --block 256 --rules=histogram-privatize \
// RUN:   2>&1 | FileCheck %s --check-prefix=RET
// RUN: forge-port propose %s --kernel pair_bins --block 256 --rules=histogram-privatize \
// RUN:   --format=json > %t2.json
// RUN: %python %S/../../Inputs/apply_proposal.py %t2.json 2 %s > %t2.cu
// RUN: FileCheck %s --check-prefix=RETFIX --match-full-lines --input-file=%t2.cu
// RUN: %nvcc -arch=sm_90 -c %t2.cu -o %t2.o
// A write outside the guard: a block the guard rejects still writes, so the
// grid stays and each block flushes once.
// RUN: forge-port propose %s --kernel flagged --block 256 --rules=histogram-privatize 2>&1 \
// RUN:   | FileCheck %s --check-prefix=OUT
// A spec whose grid does not cover the guard's rows: the original leaves
// rows out, which a loop over the guard's blocks would count.
// RUN: forge-port propose %s --kernel image_levels --spec %S/Inputs/image-levels-short.json \
// RUN:   --rules=histogram-privatize 2>&1 | FileCheck %s --check-prefix=SHORT

__global__ void image_levels(const unsigned char *img, int width, int height, size_t pitch,
                             unsigned int *levels) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (col < width && row < height) {
    unsigned char px = img[row * pitch + col];
    atomicAdd(levels + (px >> 2), 1u);
  }
}
// NOTE: # expert:histogram-privatize: 32 lane copies of the 64 bins per block{{.*}} in 16-byte loads (16 elements per thread per iteration)
// NOTE: # expert:histogram-privatize: a private shared-memory copy of the 64 bins per block{{.*}} in 16-byte loads (16 elements per thread per iteration)
// NOTE: # expert:histogram-privatize: a private shared-memory copy of the 64 bins per block for atomicAdd(&levels[(px >> 2)], ...), the guard's blocks strided over a capped grid
// NOTE: # spec: grid.x -> min((ceil_div(W, 32)) * (ceil_div(H, 8)), 132 * FORGE_GRID_WAVES * 8)
// NOTE: # spec: grid.y -> 1
// NOTE: # spec: new tunable FORGE_GRID_WAVES in {4, 1, 2, 8, 16, 32}
// NOTE: # spec: why: every thread runs the original body for the blocks of the original grid that the guard 'col < width' and 'row < height' admits, {{.*}}

// FIX:      __global__ void image_levels(const unsigned char *img, int width, int height, size_t pitch,
// FIX-NEXT:                              unsigned int *levels) {
// FIX-NEXT:   __shared__ unsigned int forge_hist[64];
// FIX:        // The original body, for one block of the original grid.
// FIX-NEXT:   auto forge_block = [&](unsigned forge_bx, unsigned forge_by) {
// FIX-NEXT:     int col = forge_bx * blockDim.x + threadIdx.x;
// FIX-NEXT:     int row = forge_by * blockDim.y + threadIdx.y;
// FIX-NEXT:     if (col < width && row < height) {
// FIX-NEXT:       unsigned char px = img[row * pitch + col];
// FIX-NEXT:       atomicAdd(forge_hist + (px >> 2), 1u);
// FIX-NEXT:     }
// FIX-NEXT:   };
// FIX-NEXT:   {
// FIX-NEXT:     // The blocks along x that may pass 'col < width'.
// FIX-NEXT:     const long long forge_limit_x = (long long)width;
// FIX:          const long long forge_blocks = forge_blocks_x * forge_blocks_y;
// FIX-NEXT:     const long long forge_grid_blocks = (long long)gridDim.x * (long long)gridDim.y;
// FIX-NEXT:     for (long long forge_vb = (long long)blockIdx.x + (long long)gridDim.x * blockIdx.y; forge_vb < forge_blocks; forge_vb += forge_grid_blocks)
// FIX-NEXT:       forge_block((unsigned)(forge_vb % forge_blocks_x), (unsigned)(forge_vb / forge_blocks_x));
// FIX-NEXT:   }
// FIX-NEXT:   __syncthreads();
// FIX-NEXT:   for (int forge_j = forge_t; forge_j < 64; forge_j += forge_nt) {
// FIX:            atomicAdd(&levels[forge_j], forge_c);
// FIX-NEXT:   }
// FIX-NEXT: }

__global__ void pair_bins(const int *a, const int *b, unsigned long long *h, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  atomicAdd(&h[(a[i] ^ b[i]) & 127], 1ull);
}
// RET: # expert:histogram-privatize: 32 lane copies of the 128 bins per block{{.*}} in 16-byte loads (4 elements per thread per iteration)
// RET: # expert:histogram-privatize: a private shared-memory copy of the 128 bins per block{{.*}} in 16-byte loads (4 elements per thread per iteration)
// RET: # expert:histogram-privatize: a private shared-memory copy of the 128 bins per block{{.*}}, the guard's blocks strided over a capped grid
// RETFIX:      auto forge_block = [&](unsigned forge_bx) {
// RETFIX-NEXT:   int i = forge_bx * blockDim.x + threadIdx.x;
// RETFIX-NEXT:   if (i >= n)
// RETFIX-NEXT:     return;
// RETFIX-NEXT:   atomicAdd(&forge_hist[(a[i] ^ b[i]) & 127], 1ull);
// RETFIX-NEXT: };

__global__ void flagged(const unsigned char *d, unsigned *h, int *seen, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicAdd(&h[d[i]], 1u);
  seen[blockIdx.x] = 1;
}
// OUT: The grid stays as it is: the kernel has no grid-stride loop over the elements, and its blocks cannot become a loop (the kernel writes memory outside the guard 'i < n'), so each block flushes once for its own elements.

// SHORT: The grid stays as it is: the kernel has no grid-stride loop over the elements, and its blocks cannot become a loop (the spec launches 512 blocks along y, fewer than the 1024 that the guard 'row < height' admits{{.*}}
