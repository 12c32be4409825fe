// REQUIRES: cuda
// Each precondition that fails says which, and nothing is proposed.
// RUN: not forge-port propose %s --kernel blur --rules=smem-stencil-tiling 2>&1 | FileCheck %s --check-prefix=BLOCK
// RUN: not forge-port propose %s --kernel unguarded --block 16,16 --rules=smem-stencil-tiling 2>&1 | FileCheck %s --check-prefix=GUARD
// RUN: not forge-port propose %s --kernel blur2 --block 32,32 --rules=smem-stencil-tiling -- -DRAD=16 -DREAL=double 2>&1 | FileCheck %s --check-prefix=SIZE
// RUN: not forge-port propose %s --kernel pointwise --block 256 --rules=smem-stencil-tiling 2>&1 | FileCheck %s --check-prefix=POINT
// RUN: not forge-port propose %s --kernel row_walk --block 256 --rules=smem-stencil-tiling 2>&1 | FileCheck %s --check-prefix=LOOP
// RUN: not forge-port propose %s --kernel strided --block 16,16 --rules=smem-stencil-tiling 2>&1 | FileCheck %s --check-prefix=SHAPE
// RUN: not forge-port propose %s --kernel off_centre --block 256 --rules=smem-stencil-tiling 2>&1 | FileCheck %s --check-prefix=CENTRE
// RUN: not forge-port propose %s --kernel in_place --block 256 --rules=smem-stencil-tiling 2>&1 | FileCheck %s --check-prefix=INPLACE
// RUN: not forge-port propose %s --kernel grid_stride --block 256 --rules=smem-stencil-tiling 2>&1 | FileCheck %s --check-prefix=SHAPE
// RUN: not forge-port propose %s --kernel half_clamped --block 256 --rules=smem-stencil-tiling 2>&1 | FileCheck %s --check-prefix=HALF
// RUN: not forge-port propose %s --kernel escapes --block 256 --rules=smem-stencil-tiling 2>&1 | FileCheck %s --check-prefix=ESCAPE
// The two tiles fit with a smaller radius.
// RUN: forge-port propose %s --kernel blur2 --block 32,32 --rules=smem-stencil-tiling --apply -o %t.cu -- -DRAD=8 -DREAL=double 2>&1 | FileCheck %s --check-prefix=TWO
// RUN: %nvcc -arch=sm_90 -DRAD=8 -DREAL=double -ptx %t.cu -o - | FileCheck %s --check-prefix=PTX
// BLOCK: forge-port: note: smem-stencil-tiling: not applicable: the block's dimensions are not known (give a spec or a launch with a constant block): the tile's size depends on them
// GUARD: forge-port: note: smem-stencil-tiling: not applicable: 'in[(y + i) * w + x + j]' (line {{[0-9]+}}) is not bounded above along dimension 0 (stride 1) by a guard or a clamp: the tile could read elements that do not exist
// SIZE: forge-port: note: smem-stencil-tiling: not applicable: the tile needs 65536 bytes of shared memory (0 already used), more than the 49152 bytes of static shared memory a block may have on sm_90
// POINT: forge-port: note: smem-stencil-tiling: not applicable: each thread reads 'in' at one position only; there is no neighbourhood to share
// A loop over a run-time range that walks the thread's row (threads step
// along w, the loop along 1) is not a radius.
// LOOP: forge-port: note: smem-stencil-tiling: not applicable: the reads of 'in' ('in[y * w + k]', line {{[0-9]+}}) move with the loop over 'k' (line {{[0-9]+}}), whose bounds are not compile-time constants: the footprint is not bounded
// SHAPE: forge-port: note: smem-stencil-tiling: not applicable: no stencil: no array is read at small constant offsets around each thread's position (the kernel model finds no footprint)
// CENTRE: forge-port: note: smem-stencil-tiling: not applicable: the stencil on 'in' has no store of one output per thread at its position: its results are not stored where its reads are centred
// INPLACE: forge-port: note: smem-stencil-tiling: not applicable: the kernel writes 'a' ('a[i]' (line {{[0-9]+}})) as well as reading it around each thread: an in-place update, whose reads a tile would take before the writes
// HALF: forge-port: note: smem-stencil-tiling: not applicable: 'in[max(i - 1, 0)]' (line {{[0-9]+}}) is not bounded above along dimension 0 (stride 1) by a guard or a clamp: the tile could read elements that do not exist
// ESCAPE: forge-port: note: smem-stencil-tiling: not applicable: 'in' is passed to 'poke' (line {{[0-9]+}}) as a writable pointer, which may write the buffer the tile would hold
// TWO: forge-port: note: applied expert:smem-stencil-tiling: stage 'a' and 'b' in a 48 x 48 and a 48 x 48 shared-memory tile (the 32 x 32 block's outputs and their halo)
// PTX: .shared .align 8 .b8 {{.*}}a_tile[18432];
// PTX: .shared .align 8 .b8 {{.*}}b_tile[18432];
// PTX: bar.sync
// PTX: ld.shared.f64
#ifndef RAD
#define RAD 1
#endif
#ifndef REAL
#define REAL float
#endif

__global__ void blur(const REAL *in, REAL *out, int h, int w) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h)
    return;
  REAL acc = 0;
  for (int i = -RAD; i <= RAD; ++i)
    for (int j = -RAD; j <= RAD; ++j)
      if (y + i >= 0 && y + i < h && x + j >= 0 && x + j < w)
        acc += in[(y + i) * w + x + j];
  out[y * w + x] = acc;
}

// Two inputs, each tiled: with -DRAD=16 -DREAL=double and 32 x 32 blocks
// the two 64 x 64 tiles take 64 KB, more than a block's static 48 KB.
__global__ void blur2(const REAL *a, const REAL *b, REAL *out, int h, int w) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h)
    return;
  REAL acc = 0;
  for (int i = -RAD; i <= RAD; ++i)
    for (int j = -RAD; j <= RAD; ++j)
      if (y + i >= 0 && y + i < h && x + j >= 0 && x + j < w)
        acc += a[(y + i) * w + x + j] * b[(y + i) * w + x + j];
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

__global__ void row_walk(const float *in, float *out, int h, int w) {
  int y = blockIdx.x * blockDim.x + threadIdx.x;
  if (y >= h)
    return;
  float acc = 0.0f;
  for (int k = 0; k < w; ++k)
    acc += in[y * w + k];
  out[y] = acc;
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

// The output is not at the centre of the reads (each thread writes out[2 * i]).
__global__ void off_centre(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i + 2 < n)
    out[2 * i] = in[i] + in[i + 1] + in[i + 2];
}

// In place: the tile would hold values the other threads overwrite.
__global__ void in_place(float *a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i > 0 && i < n - 1)
    a[i] = 0.5f * (a[i - 1] + a[i + 1]);
}

// Each thread reads around several positions (a grid-stride loop).
__global__ void grid_stride(const float *in, float *out, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    if (i > 0 && i < n - 1)
      out[i] = in[i - 1] + in[i] + in[i + 1];
}

// Clamped from below only: the reads past the end are not bounded.
__global__ void half_clamped(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = in[max(i - 1, 0)] + in[i] + in[i + 1];
}

// The buffer goes to a function that may write it, where the model does not look.
__device__ void poke(float *p, int i) { p[i] = 0.f; }
__global__ void escapes(float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i > 0 && i < n - 1) {
    out[i] = in[i - 1] + in[i + 1];
    poke(in, i);
  }
}
