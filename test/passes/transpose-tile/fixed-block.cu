// REQUIRES: cuda
// Positions written with a constant instead of blockDim
// (`blockIdx.x * TILE + threadIdx.x`) are the thread's position only when
// the block is TILE wide: the rewrite keeps the original body for other
// blocks (a device-side blockDim check, the same for the whole grid) and
// leaves the grid alone, which that body needs.
// RUN: forge-port propose %s --kernel t_const --block 16,16 --rules=transpose-tile > %t.props
// RUN: FileCheck %s --check-prefix=WHY --input-file=%t.props
// RUN: forge-port propose %s --kernel t_const --block 16,16 --rules=transpose-tile --apply -o %t.1.cu
// RUN: FileCheck %s --check-prefix=CONST --match-full-lines --input-file=%t.1.cu
// RUN: %nvcc -arch=sm_90 -c %t.1.cu -o %t.1.o
// RUN: forge-port propose %s --kernel t_mixed --block 32,8 --rules=transpose-tile --apply -o %t.2.cu
// RUN: FileCheck %s --check-prefix=MIXED --match-full-lines --input-file=%t.2.cu
// RUN: %nvcc -arch=sm_90 -c %t.2.cu -o %t.2.o
// WHY: # expert:transpose-tile: transpose 'in' into 'out' through a 32 x 32 shared-memory tile
// WHY: # The naive transpose {{.*}} The kernel's positions assume blockDim.x == 16 and blockDim.y == 16, so other blocks run the original body (checked on the device), and the grid stays as it is, which that body needs.
// WHY-NOT: # spec:

#define TILE 16
__global__ void t_const(const float *in, float *out, int rows, int cols) {
  int x = blockIdx.x * TILE + threadIdx.x;
  int y = blockIdx.y * TILE + threadIdx.y;
  if (x < cols && y < rows)
    out[x * rows + y] = in[y * cols + x];
}
// CONST:      __global__ void t_const(const float *in, float *out, int rows, int cols) {
// CONST:        // The kernel's positions assume blockDim.x == 16 and blockDim.y == 16; with another block it runs as written.
// CONST-NEXT:   if (blockDim.x != 16 || blockDim.y != 16) {
// CONST-NEXT:     int x = blockIdx.x * TILE + threadIdx.x;
// CONST-NEXT:     int y = blockIdx.y * TILE + threadIdx.y;
// CONST-NEXT:     if (x < cols && y < rows)
// CONST-NEXT:       out[x * rows + y] = in[y * cols + x];
// CONST-NEXT:     return;
// CONST-NEXT:   }
// CONST-NEXT:   __shared__ float forge_tile[32][32 + 1];
// CONST:              const long long x = forge_x0 + forge_e % 32, y = forge_y0 + forge_e / 32;
// CONST-NEXT:         if (x < cols && y < rows)
// CONST-NEXT:           forge_tile[forge_e / 32][forge_e % 32] = in[y * cols + x];
// CONST:                out[x * rows + y] = forge_tile[forge_e % 32][forge_e / 32];

// Only y is written with a constant: only blockDim.y is checked.
__global__ void t_mixed(const float *in, float *out, int rows, int cols) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * 8 + threadIdx.y;
  if (x >= cols || y >= rows) return;
  out[(size_t)x * rows + y] = in[(size_t)y * cols + x];
}
// MIXED:      __global__ void t_mixed(const float *in, float *out, int rows, int cols) {
// MIXED:        if (blockDim.y != 8) {
// MIXED-NEXT:     int x = blockIdx.x * blockDim.x + threadIdx.x;
// MIXED-NEXT:     int y = blockIdx.y * 8 + threadIdx.y;
// MIXED-NEXT:     if (x >= cols || y >= rows) return;
// MIXED-NEXT:     out[(size_t)x * rows + y] = in[(size_t)y * cols + x];
// MIXED-NEXT:     return;
// MIXED-NEXT:   }
// MIXED:                out[x * rows + y] = forge_tile[forge_e % 32][forge_e / 32];
