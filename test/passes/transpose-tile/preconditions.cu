// REQUIRES: cuda
// Preconditions that fail, each with its reason; exit 1 and nothing on stdout.
// RUN: not forge-port propose %s --kernel t_inplace --rules=transpose-tile 2>&1 | FileCheck %s --check-prefix=INPLACE
// RUN: not forge-port propose %s --kernel t_copy --rules=transpose-tile 2>&1 | FileCheck %s --check-prefix=COPY
// RUN: not forge-port propose %s --kernel t_noguard --rules=transpose-tile 2>&1 | FileCheck %s --check-prefix=NOGUARD
// RUN: not forge-port propose %s --kernel t_partial --rules=transpose-tile 2>&1 | FileCheck %s --check-prefix=PARTIAL
// RUN: not forge-port propose %s --kernel t_printf --rules=transpose-tile 2>&1 | FileCheck %s --check-prefix=PRINTF
// RUN: not forge-port propose %s --kernel t_varying --rules=transpose-tile 2>&1 | FileCheck %s --check-prefix=VARYING
// RUN: not forge-port propose %s --kernel t_two_out --rules=transpose-tile 2>&1 | FileCheck %s --check-prefix=TWO
// RUN: not forge-port propose %s --kernel t_loop --rules=transpose-tile 2>&1 | FileCheck %s --check-prefix=LOOP
// RUN: not forge-port propose %s --kernel t_z --rules=transpose-tile 2>&1 | FileCheck %s --check-prefix=TZ
// RUN: not forge-port propose %s --kernel t_inplace --rules=transpose-tile 2>/dev/null | count 0

#include <cstdio>

// In place: the model sees no out-of-place transpose (a tile would read
// elements other blocks have already written).
__global__ void t_inplace(float *a, int n) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < n && y < n)
    a[x * n + y] = a[y * n + x];
}
// INPLACE: forge-port: note: transpose-tile: not applicable: the model recognises no transpose (a store whose value is a load, with the fast index of one on threadIdx.x and of the other on threadIdx.y, or one along the column t % d and the other along the row t / d of a flat index t)

__global__ void t_copy(const float *in, float *out, int rows, int cols) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < cols && y < rows)
    out[y * cols + x] = in[y * cols + x];
}
// COPY: forge-port: note: transpose-tile: not applicable: the model recognises no transpose

__global__ void t_noguard(const float *in, float *out, int rows, int cols) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  out[x * rows + y] = in[y * cols + x];
}
// NOGUARD: forge-port: note: transpose-tile: not applicable: the store 'out[x * rows + y]' is not guarded: the tiles at the edges need bounds on both positions (x < cols && y < rows)

__global__ void t_partial(const float *in, float *out, int rows, int cols) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < cols)
    out[x * rows + y] = in[y * cols + x];
}
// PARTIAL: forge-port: note: transpose-tile: not applicable: the guard 'x < cols' does not bound y from above; the tiles at the edges need both bounds

__global__ void t_printf(const float *in, float *out, int rows, int cols) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < cols && y < rows) {
    out[x * rows + y] = in[y * cols + x];
    printf("%d\n", x);
  }
}
// PRINTF: forge-port: note: transpose-tile: not applicable: the kernel calls 'printf' (line [[@LINE-3]]): the tiled kernel would repeat or drop it

__global__ void t_varying(const float *in, float *out, int rows, int cols) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < cols && y < rows)
    out[x * rows + y] = in[y * cols + x] + x;
}
// VARYING: forge-port: note: transpose-tile: not applicable: the stored value uses 'x', which varies between threads ('threadIdx.x' differs between threads); the tile moves each element to another thread

__global__ void t_two_out(const float *in, float *out, float *out2, int rows, int cols) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < cols && y < rows) {
    out[x * rows + y] = in[y * cols + x];
    out2[y * cols + x] = 1.0f;
  }
}
// TWO: forge-port: note: transpose-tile: not applicable: the kernel also writes 'out2[y * cols + x]' (line [[@LINE-3]]); only a kernel that is one transpose is tiled

// A loop over tile rows is tiled (tile-row-loop.cu), but not one whose
// trip count is a parameter's: what a block covers is not known.
__global__ void t_loop(const float *in, float *out, int rows, int cols, int tile) {
  int x = blockIdx.x * 32 + threadIdx.x;
  int y = blockIdx.y * 32 + threadIdx.y;
  for (int j = 0; j < tile; j += 8)
    if (x < cols && y + j < rows)
      out[x * rows + y + j] = in[(y + j) * cols + x];
}
// LOOP: forge-port: note: transpose-tile: not applicable: the loop over 'j' (line [[@LINE-4]]) has no constant trip count ('j < tile')

// One-dimensional transposes through / and % (flat-index.cu) are tiled;
// their refusals are there.

__global__ void t_z(const float *in, float *out, int rows, int cols) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  int z = threadIdx.z;
  if (x < cols && y < rows)
    out[z * rows * cols + x * rows + y] = in[z * rows * cols + y * cols + x];
}
// TZ: forge-port: note: transpose-tile: not applicable: the kernel reads 'threadIdx.z'; the tiled kernel gives threads other elements (threadIdx.z would be the same for all)
