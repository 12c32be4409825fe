// REQUIRES: cuda
// The block-order rule: a 2D grid whose blockIdx.y walks the contiguous axis
// gets its blocks renumbered (blockIdx.y fastest); what it declines, with
// the reasons.
// RUN: forge-port propose %s --kernel madd --block 16,16 --rules=block-order 2>&1 | FileCheck %s --check-prefix=MADD
// RUN: forge-port propose %s --kernel madd --block 16,16 --rules=block-order --apply -o %t.cu
// RUN: %nvcc -arch=sm_90 -c %t.cu -o %t.o
// RUN: forge-port propose %s --kernel madd --block 16,16 --rules=warp-axis --apply -o %t.wa.cu
// RUN: forge-port propose %t.wa.cu --kernel madd --block 16,16 --rules=block-order --apply -o %t.both.cu
// RUN: FileCheck %s --check-prefix=AFTER < %t.both.cu
// RUN: forge-port propose %s --kernel chunks --block 256 --rules=block-order 2>&1 | FileCheck %s --check-prefix=CHUNKS
// RUN: forge-port propose %s --kernel staged --block 16,16 --rules=block-order 2>&1 | FileCheck %s --check-prefix=STAGED
// RUN: forge-port propose %s --kernel batched --block 16,16 --rules=block-order 2>&1 | FileCheck %s --check-prefix=BATCHED
// RUN: not forge-port propose %s --kernel rows_ok --block 16,16 --rules=block-order 2>&1 | FileCheck %s --check-prefix=ALREADY
// RUN: not forge-port propose %s --kernel copy_t --block 16,16 --rules=block-order 2>&1 | FileCheck %s --check-prefix=TRANSPOSE
// RUN: not forge-port propose %s --kernel helper --block 16,16 --rules=block-order 2>&1 | FileCheck %s --check-prefix=HELPER
// RUN: not forge-port propose %s --kernel macro --block 16,16 --rules=block-order 2>&1 | FileCheck %s --check-prefix=MACRO
// RUN: not forge-port propose %s --kernel whole --block 16,16 --rules=block-order 2>&1 | FileCheck %s --check-prefix=WHOLE
// RUN: not forge-port propose %s --kernel waits --block 16,16 --rules=block-order 2>&1 | FileCheck %s --check-prefix=WAITS
// RUN: not forge-port propose %s --kernel flag --block 16,16 --rules=block-order 2>&1 | FileCheck %s --check-prefix=VOLATILE
// RUN: not forge-port propose %s --kernel asm_ctaid --block 16,16 --rules=block-order 2>&1 | FileCheck %s --check-prefix=ASM
// RUN: not forge-port propose %s --kernel clustered --block 16,16 --rules=block-order 2>&1 | FileCheck %s --check-prefix=CLUSTER
// RUN: not forge-port propose %s --kernel groups --block 16,16 --rules=block-order 2>&1 | FileCheck %s --check-prefix=GROUPS
// RUN: not forge-port propose %S/Inputs/one_row.cu --spec %S/Inputs/one_row.json --rules=block-order 2>&1 | FileCheck %s --check-prefix=ONEROW

// x over the rows, y over the columns of row-major data.
__global__ void madd(const float *A, const float *B, float *C, int M, int N) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  int col = blockIdx.y * blockDim.y + threadIdx.y;
  if (row < M && col < N)
    C[row * N + col] = A[row * N + col] + B[row * N + col];
}
// MADD: # expert:block-order: consecutive blocks along blockIdx.y, the contiguous axis of 'C[row * N + col]' (line {{[0-9]+}}), 'A[row * N + col]' (line {{[0-9]+}}), 'B[row * N + col]'
// MADD:      unsigned int forge_bx, forge_by;
// MADD-NEXT: if ((unsigned long long)gridDim.x * gridDim.y <= 0xffffffffull) {
// MADD-NEXT:   const unsigned int forge_blk = blockIdx.x + gridDim.x * blockIdx.y;
// MADD-NEXT:   forge_bx = forge_blk / gridDim.y;
// MADD-NEXT:   forge_by = forge_blk % gridDim.y;
// MADD-NEXT: } else {
// MADD-NEXT:   const unsigned long long forge_blk = blockIdx.x + (unsigned long long)gridDim.x * blockIdx.y;
// MADD-NEXT:   forge_bx = (unsigned int)(forge_blk / gridDim.y);
// MADD-NEXT:   forge_by = (unsigned int)(forge_blk % gridDim.y);
// MADD-NEXT: }
// MADD-NEXT: int row = forge_bx * blockDim.x + threadIdx.x;
// MADD-NEXT: int col = forge_by * blockDim.y + threadIdx.y;

// After warp-axis, the head goes above warp-axis's own, at the top of the body.
// AFTER:      __global__ void madd(
// AFTER-NEXT:   // block-order: the blocks renumbered so that consecutive blocks (the hardware starts
// AFTER:        forge_by = (unsigned int)(forge_blk % gridDim.y);
// AFTER-NEXT:   }
// AFTER-NEXT:   // warp-axis: the threads of the block renumbered so that consecutive lanes take
// AFTER:        int row = forge_bx * blockDim.x + forge_tx;
// AFTER-NEXT:   int col = forge_by * blockDim.y + forge_ty;

// A block per row segment: x over the rows, y over 256-element chunks of a
// row; the threads are coalesced already, the blocks are not.
__global__ void chunks(const float *in, float *out, int cols) {
  size_t at = (size_t)blockIdx.x * cols + blockIdx.y * 256 + threadIdx.x;
  if (blockIdx.y * 256 + threadIdx.x < cols)
    out[at] = 2.0f * in[at];
}
// CHUNKS: # expert:block-order: consecutive blocks along blockIdx.y
// CHUNKS: size_t at = (size_t)forge_bx * cols + forge_by * 256 + threadIdx.x;
// CHUNKS: if (forge_by * 256 + threadIdx.x < cols)

// Shared memory and barriers are the block's own: not a reason to decline.
__global__ void staged(const float *A, float *C, int M, int N) {
  __shared__ float t[16][16];
  int row = blockIdx.x * 16 + threadIdx.y;
  int col = blockIdx.y * 16 + threadIdx.x;
  t[threadIdx.y][threadIdx.x] = row < M && col < N ? A[row * N + col] : 0.0f;
  __syncthreads();
  if (row < M && col < N)
    C[row * N + col] = t[threadIdx.y][threadIdx.x] + t[threadIdx.y][15 - threadIdx.x];
}
// STAGED: # expert:block-order: consecutive blocks along blockIdx.y

// blockIdx.z (a batch) is left alone.
__global__ void batched(const float *A, float *C, int M, int N) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  int col = blockIdx.y * blockDim.y + threadIdx.y;
  size_t b = (size_t)blockIdx.z * M * N;
  if (row < M && col < N)
    C[b + row * N + col] = -A[b + row * N + col];
}
// BATCHED: size_t b = (size_t)blockIdx.z * M * N;

__global__ void rows_ok(const float *A, float *C, int M, int N) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row < M && col < N)
    C[row * N + col] = 2 * A[row * N + col];
}
// ALREADY: not applicable: no global access moves by fewer elements along blockIdx.y than along blockIdx.x

__global__ void copy_t(const float *in, float *out, int n) {
  int r = blockIdx.y * blockDim.y + threadIdx.y;
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < n && c < n)
    out[c * n + r] = in[r * n + c];
}
// TRANSPOSE: not applicable: renumbering the blocks along blockIdx.y would help 'out[c * n + r]' (line {{[0-9]+}}) but move 'in[r * n + c]' (line {{[0-9]+}}) away from its neighbours

__device__ int rowOf() { return blockIdx.x * blockDim.x + threadIdx.x; }
__global__ void helper(const float *A, float *C, int M, int N) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  int col = blockIdx.y * blockDim.y + threadIdx.y;
  if (row < M && col < N)
    C[row * N + col] = A[row * N + col] + rowOf();
}
// HELPER: not applicable: a device function the kernel calls reads 'blockIdx.x'

#define COL (blockIdx.y * blockDim.y + threadIdx.y)
__global__ void macro(const float *A, float *C, int M, int N) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M && COL < N)
    C[row * N + COL] = A[row * N + COL];
}
// MACRO: not applicable: 'blockIdx.y' is written inside a macro expansion

__device__ int sumOf(uint3 b) { return b.x + b.y; }
__global__ void whole(const float *A, float *C, int M, int N) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  int col = blockIdx.y * blockDim.y + threadIdx.y;
  if (row < M && col < N)
    C[row * N + col] = A[row * N + col] + sumOf(blockIdx);
}
// WHOLE: not applicable: 'blockIdx' is used as a whole, not by its components

// The last block to finish adds the totals: blocks communicate.
__global__ void waits(const float *A, float *C, unsigned *done, int M, int N) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  int col = blockIdx.y * blockDim.y + threadIdx.y;
  if (row < M && col < N)
    C[row * N + col] = A[row * N + col];
  __threadfence();
  if (threadIdx.x == 0 && threadIdx.y == 0)
    atomicAdd(done, 1u);
}
// WAITS: not applicable: the kernel calls '__threadfence': its blocks communicate

__global__ void flag(const float *A, float *C, volatile int *ready, int M, int N) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  int col = blockIdx.y * blockDim.y + threadIdx.y;
  while (blockIdx.y > 0 && ready[blockIdx.y - 1] == 0) {
  }
  if (row < M && col < N)
    C[row * N + col] = A[row * N + col];
}
// VOLATILE: not applicable: the kernel reads or writes volatile memory (line {{[0-9]+}})

__global__ void asm_ctaid(const float *A, float *C, int M, int N) {
  unsigned y;
  asm("mov.u32 %0, %%ctaid.y;" : "=r"(y));
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  int col = y * blockDim.y + threadIdx.y;
  if (row < M && col < N)
    C[row * N + col] = A[row * N + col];
}
// ASM: not applicable: {{.*}}

__global__ void __cluster_dims__(2, 1, 1) clustered(const float *A, float *C, int M, int N) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  int col = blockIdx.y * blockDim.y + threadIdx.y;
  if (row < M && col < N)
    C[row * N + col] = A[row * N + col];
}
// CLUSTER: not applicable: the kernel has __cluster_dims__

#include <cooperative_groups.h>
// The group's index is the hardware's block index, read in the header.
__global__ void groups(const float *A, float *C, int M, int N) {
  auto b = cooperative_groups::this_thread_block();
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  int col = blockIdx.y * blockDim.y + threadIdx.y;
  if (row < M && col < N)
    C[row * N + col] = A[row * N + col] + b.group_index().y;
}
// GROUPS: not applicable: the kernel uses cooperative groups ('{{[a-z_]+}}'), which read the hardware's thread and block numbers

// ONEROW: not applicable: the spec's grid is 4096x1x1: with one block along y there is no other order for the blocks
