// REQUIRES: cuda
// The bench's 256-bin byte histogram (one global atomicAdd per element over a
// grid-stride loop): each block counts into a shared copy of the bins and
// flushes each non-empty bin with one atomicAdd; the grid is capped at
// FORGE_GRID_WAVES waves, since the loop visits every element for any grid.
// RUN: forge-port propose %s --kernel histogram256 --spec %S/Inputs/histogram256.json \
// RUN:   --rules=histogram-privatize --apply -o %t.cu 2>&1 | FileCheck %s --check-prefix=NOTE
// RUN: FileCheck %s --check-prefix=FIX --match-full-lines --input-file=%t.cu
// RUN: %nvcc -arch=sm_90 -ptx %t.cu -o - | FileCheck %s --check-prefix=PTX
// The second proposal: 8 copies, warp w counting into copy w % 8.
// RUN: forge-port propose %s --kernel histogram256 --spec %S/Inputs/histogram256.json \
// RUN:   --rules=histogram-privatize 2>&1 | FileCheck %s --check-prefix=WARP

__global__ void histogram256(const unsigned char *data, unsigned int *bins, long long count) {
  long long idx = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  long long step = (long long)blockDim.x * gridDim.x;
  while (idx < count) {
    atomicAdd(&bins[data[idx]], 1u);
    idx += step;
  }
}
// NOTE: forge-port: note: applied expert:histogram-privatize: a private shared-memory copy of the 256 bins per block for atomicAdd(&bins[data[idx]], ...)
// NOTE: forge-port: note: histogram-privatize: spec: grid.x -> min(ceil_div(N, 256 * 16), 132 * FORGE_GRID_WAVES * 8)
// NOTE: forge-port: note: histogram-privatize: spec: new tunable FORGE_GRID_WAVES in {4, 1, 2, 8, 16, 32}

// FIX:      __global__ void histogram256(const unsigned char *data, unsigned int *bins, long long count) {
// FIX-NEXT:   __shared__ unsigned int forge_hist[256];
// FIX-NEXT:   const int forge_t = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
// FIX-NEXT:   const int forge_nt = blockDim.x * blockDim.y * blockDim.z;
// FIX-NEXT:   for (int forge_j = forge_t; forge_j < 256; forge_j += forge_nt)
// FIX-NEXT:     forge_hist[forge_j] = 0;
// FIX-NEXT:   __syncthreads();
// FIX-NEXT:   long long idx = (long long)blockIdx.x * blockDim.x + threadIdx.x;
// FIX-NEXT:   long long step = (long long)blockDim.x * gridDim.x;
// FIX-NEXT:   while (idx < count) {
// FIX-NEXT:     atomicAdd(&forge_hist[data[idx]], 1u);
// FIX-NEXT:     idx += step;
// FIX-NEXT:   }
// FIX-NEXT:   __syncthreads();
// FIX-NEXT:   for (int forge_j = forge_t; forge_j < 256; forge_j += forge_nt) {
// FIX-NEXT:     unsigned int forge_c = forge_hist[forge_j];
// FIX-NEXT:     if (forge_c != 0)
// FIX-NEXT:       atomicAdd(&bins[forge_j], forge_c);
// FIX-NEXT:   }
// FIX-NEXT: }

// The counting is in shared memory, the flush in global memory.
// PTX: atom.shared.add.u32
// PTX: bar.sync
// PTX: {{(atom|red)}}.global.add.u32

// WARP: # expert:histogram-privatize: 8 private shared-memory copies of the 256 bins per block (warp w counts into copy w % 8)
// WARP:   __shared__ unsigned int forge_hist[8][256];
// WARP:   const int forge_w = (forge_t / 32) % 8;
// WARP:     atomicAdd(&forge_hist[forge_w][data[idx]], 1u);
// WARP:     for (int forge_r = 1; forge_r < 8; ++forge_r)
// WARP-NEXT:       forge_c = forge_c + forge_hist[forge_r][forge_j];
