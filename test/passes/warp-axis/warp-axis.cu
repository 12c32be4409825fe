// REQUIRES: cuda
// The warp-axis rule: a 2D kernel whose lanes walk the strided axis gets its
// block's threads renumbered; what it declines, with the reasons.
// RUN: forge-port propose %s --kernel madd --block 16,16 --rules=warp-axis 2>&1 | FileCheck %s --check-prefix=MADD
// RUN: forge-port propose %s --kernel madd --block 16,16 --rules=warp-axis --apply -o %t.cu
// RUN: %nvcc -arch=sm_90 -c %t.cu -o %t.o
// RUN: forge-port propose %s --kernel blur_rows --block 32,8 --rules=warp-axis 2>&1 | FileCheck %s --check-prefix=BLUR
// RUN: forge-port propose %s --kernel bias_rows --block 16,16 --rules=warp-axis 2>&1 | FileCheck %s --check-prefix=BIAS
// RUN: forge-port propose %s --kernel planes --block 16,8,2 --rules=warp-axis 2>&1 | FileCheck %s --check-prefix=PLANES
// RUN: not forge-port propose %s --kernel madd --block 256 --rules=warp-axis 2>&1 | FileCheck %s --check-prefix=ONEROW
// RUN: not forge-port propose %s --kernel copy_t --block 16,16 --rules=warp-axis 2>&1 | FileCheck %s --check-prefix=TRANSPOSE
// RUN: not forge-port propose %s --kernel rows_ok --block 16,16 --rules=warp-axis 2>&1 | FileCheck %s --check-prefix=ALREADY
// RUN: not forge-port propose %s --kernel staged --block 16,16 --rules=warp-axis 2>&1 | FileCheck %s --check-prefix=SHARED
// RUN: not forge-port propose %s --kernel voted --block 16,16 --rules=warp-axis 2>&1 | FileCheck %s --check-prefix=VOTE
// RUN: not forge-port propose %s --kernel helper --block 16,16 --rules=warp-axis 2>&1 | FileCheck %s --check-prefix=HELPER
// RUN: not forge-port propose %s --kernel macro --block 16,16 --rules=warp-axis 2>&1 | FileCheck %s --check-prefix=MACRO
// RUN: not forge-port propose %s --kernel whole --block 16,16 --rules=warp-axis 2>&1 | FileCheck %s --check-prefix=WHOLE
// RUN: not forge-port propose %s --kernel groups --block 16,16 --rules=warp-axis 2>&1 | FileCheck %s --check-prefix=GROUPS

__global__ void madd(const float *A, const float *B, float *C, int M, int N) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  int col = blockIdx.y * blockDim.y + threadIdx.y;
  if (row < M && col < N)
    C[row * N + col] = A[row * N + col] + B[row * N + col];
}
// MADD: # expert:warp-axis: lanes along threadIdx.y, the contiguous axis of 'C[row * N + col]' (line {{[0-9]+}}), 'A[row * N + col]'
// MADD:      const unsigned int forge_lin = threadIdx.x + blockDim.x * threadIdx.y;
// MADD-NEXT: const unsigned int forge_tx = forge_lin / blockDim.y;
// MADD-NEXT: const unsigned int forge_ty = forge_lin % blockDim.y;
// MADD-NEXT: int row = blockIdx.x * blockDim.x + forge_tx;
// MADD-NEXT: int col = blockIdx.y * blockDim.y + forge_ty;
// MADD-NEXT: if (row < M && col < N)

__global__ void blur_rows(const float *in, float *out, int h, int w) {
  int y = blockIdx.x * blockDim.x + threadIdx.x;
  int x = blockIdx.y * blockDim.y + threadIdx.y;
  if (y >= h || x >= w)
    return;
  float s = 0.0f;
  for (int dy = -1; dy <= 1; ++dy)
    for (int dx = -1; dx <= 1; ++dx)
      s += in[(size_t)min(max(y + dy, 0), h - 1) * w + min(max(x + dx, 0), w - 1)];
  out[(size_t)y * w + x] = s / 9.0f;
}
// BLUR: # expert:warp-axis: lanes along threadIdx.y
// BLUR: int y = blockIdx.x * blockDim.x + forge_tx;

// A per-row value read along x (coalesced now) is shared by the lanes of a
// row after the renumbering: not a reason to decline.
__global__ void bias_rows(const float *A, const float *bias, float *C, int M, int N) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  int col = blockIdx.y * blockDim.y + threadIdx.y;
  if (row < M && col < N)
    C[row * N + col] = A[row * N + col] + bias[row];
}
// BIAS: # expert:warp-axis: lanes along threadIdx.y, the contiguous axis of 'C[row * N + col]' (line {{[0-9]+}}), 'A[row * N + col]' (line {{[0-9]+}})

// threadIdx.z (each z plane of the block renumbered on its own) is left as
// written: not a use of threadIdx as a whole.
__global__ void planes(const float *A, float *C, int M, int N) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  int col = blockIdx.y * blockDim.y + threadIdx.y;
  size_t p = (size_t)(blockIdx.z * blockDim.z + threadIdx.z) * M * N;
  if (row < M && col < N)
    C[p + row * N + col] = A[p + row * N + col];
}
// PLANES: # expert:warp-axis: lanes along threadIdx.y
// PLANES: size_t p = (size_t)(blockIdx.z * blockDim.z + threadIdx.z) * M * N;

// ONEROW: not applicable: the block is 256x1x1: with one thread along y there is no other axis for the lanes to walk

// A transpose: one side is coalesced along x already.
__global__ void copy_t(const float *in, float *out, int n) {
  int r = blockIdx.y * blockDim.y + threadIdx.y;
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < n && c < n)
    out[c * n + r] = in[r * n + c];
}
// TRANSPOSE: not applicable: renumbering the lanes along threadIdx.y would help 'out[c * n + r]' (line {{[0-9]+}}) but make 'in[r * n + c]' (line {{[0-9]+}}) strided, which is coalesced along threadIdx.x now

__global__ void rows_ok(const float *A, float *C, int M, int N) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row < M && col < N)
    C[row * N + col] = 2 * A[row * N + col];
}
// ALREADY: not applicable: no global access moves by one element along threadIdx.y while neighbouring lanes (threadIdx.x) touch elements apart

__global__ void staged(const float *A, float *C, int M, int N) {
  __shared__ float t[16][16];
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  int col = blockIdx.y * blockDim.y + threadIdx.y;
  t[threadIdx.x][threadIdx.y] = A[row * N + col];
  __syncthreads();
  C[row * N + col] = t[threadIdx.y][threadIdx.x];
}
// SHARED: not applicable: the kernel uses shared memory ('t'): its threads cooperate already

__global__ void voted(const float *A, float *C, int M, int N) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  int col = blockIdx.y * blockDim.y + threadIdx.y;
  if (row < M && col < N)
    C[row * N + col] = __any_sync(0xffffffff, A[row * N + col] > 0) ? 1.0f : 0.0f;
}
// VOTE: not applicable: the kernel calls '__any_sync', which synchronises or communicates between threads

__device__ int lane_row() { return blockIdx.x * blockDim.x + threadIdx.x; }
__global__ void helper(const float *A, float *C, int M, int N) {
  int row = lane_row();
  int col = blockIdx.y * blockDim.y + threadIdx.y;
  if (row < M && col < N)
    C[row * N + col] = A[row * N + col];
}
// HELPER: not applicable: a device function the kernel calls reads 'threadIdx.x'

#define ROW (blockIdx.x * blockDim.x + threadIdx.x)
__global__ void macro(const float *A, float *C, int M, int N) {
  int row = ROW;
  int col = blockIdx.y * blockDim.y + threadIdx.y;
  if (row < M && col < N)
    C[row * N + col] = A[row * N + col];
}
// MACRO: not applicable: 'threadIdx.x' is written inside a macro expansion

// The row read through a whole uint3 is not traced to threadIdx.x.
__global__ void whole(const float *A, float *C, int M, int N) {
  uint3 t = threadIdx;
  int row = blockIdx.x * blockDim.x + t.x;
  int col = blockIdx.y * blockDim.y + threadIdx.y;
  if (row < M && col < N)
    C[row * N + col] = A[row * N + col];
}
// WHOLE: not applicable: no global access moves by one element along threadIdx.y

#include <cooperative_groups.h>
// thread_rank() is the hardware's thread number, read in the header.
__global__ void groups(const float *A, float *C, int M, int N) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  int col = blockIdx.y * blockDim.y + threadIdx.y;
  if (row < M && col < N)
    C[row * N + col] = A[row * N + col] + cooperative_groups::this_thread_block().thread_rank();
}
// GROUPS: not applicable: the kernel uses cooperative groups ('{{[a-z_]+}}'), which read the hardware's thread and block numbers
