// REQUIRES: cuda
// Each precondition that fails says which, and nothing is proposed.
// RUN: not forge-port propose %s --kernel blur --rules=smem-stencil-tiling 2>&1 | FileCheck %s --check-prefix=BLOCK
// RUN: not forge-port propose %s --kernel unguarded --block 16,16 --rules=smem-stencil-tiling 2>&1 | FileCheck %s --check-prefix=GUARD
// RUN: not forge-port propose %s --kernel blur --block 32,32 --rules=smem-stencil-tiling -- -DRAD=40 2>&1 | FileCheck %s --check-prefix=SIZE
// RUN: not forge-port propose %s --kernel pointwise --block 256 --rules=smem-stencil-tiling 2>&1 | FileCheck %s --check-prefix=POINT
// RUN: not forge-port propose %s --kernel runtime_radius --block 16,16 --rules=smem-stencil-tiling 2>&1 | FileCheck %s --check-prefix=LOOP
// RUN: not forge-port propose %s --kernel strided --block 16,16 --rules=smem-stencil-tiling 2>&1 | FileCheck %s --check-prefix=SHAPE
// BLOCK: forge-port: note: smem-stencil-tiling: not applicable: the block's dimensions are not known (give a spec or a launch with a constant block): the tile's size depends on them
// GUARD: forge-port: note: smem-stencil-tiling: not applicable: the read 'in[(y + i) * w + x + j]' (line {{[0-9]+}}) is not guarded by bounds checks on its column (0 <= x + dx < w); the tile could not tell which elements exist
// SIZE: forge-port: note: smem-stencil-tiling: not applicable: the tile needs 50176 bytes of shared memory (0 already used), more than the 49152 bytes of static shared memory a block may have on sm_90
// POINT: forge-port: note: smem-stencil-tiling: not applicable: each thread reads 'in' at one position only; there is no neighbourhood to share
// LOOP: forge-port: note: smem-stencil-tiling: not applicable: the read 'in[(y + i) * w + x + j]' is inside a loop without constant bounds (line {{[0-9]+}}: the loop's first value '-r' is not a constant)
// SHAPE: forge-port: note: smem-stencil-tiling: not applicable: 'in[(y + i) * 2 * w + x + j]' is not indexed as in[(y + dy) * w + x + dx] or in[i + di] around the thread's position
#ifndef RAD
#define RAD 1
#endif

__global__ void blur(const float *in, float *out, int h, int w) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h)
    return;
  float acc = 0.0f;
  for (int i = -RAD; i <= RAD; ++i)
    for (int j = -RAD; j <= RAD; ++j)
      if (y + i >= 0 && y + i < h && x + j >= 0 && x + j < w)
        acc += in[(y + i) * w + x + j];
  out[y * w + x] = acc;
}

__global__ void unguarded(const float *in, float *out, int h, int w) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  float acc = 0.0f;
  for (int i = -1; i <= 1; ++i)
    for (int j = -1; j <= 1; ++j)
      acc += in[(y + i) * w + x + j];
  out[y * w + x] = acc;
}

__global__ void pointwise(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = 2.0f * in[i];
}

__global__ void runtime_radius(const float *in, float *out, int h, int w, int r) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  float acc = 0.0f;
  for (int i = -r; i <= r; ++i)
    for (int j = -1; j <= 1; ++j)
      if (y + i >= 0 && y + i < h && x + j >= 0 && x + j < w)
        acc += in[(y + i) * w + x + j];
  out[y * w + x] = acc;
}

__global__ void strided(const float *in, float *out, int h, int w) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  float acc = 0.0f;
  for (int i = -1; i <= 1; ++i)
    for (int j = -1; j <= 1; ++j)
      if (y + i >= 0 && y + i < h && x + j >= 0 && x + j < w)
        acc += in[(y + i) * 2 * w + x + j];
  out[y * w + x] = acc;
}
