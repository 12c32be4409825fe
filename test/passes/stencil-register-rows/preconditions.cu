// REQUIRES: cuda
// Each precondition that fails says which, and nothing is proposed.
// RUN: not forge-port propose %s --kernel blur --block 16,16 --rules=stencil-register-rows 2>&1 | FileCheck %s --check-prefix=GRID
// RUN: not forge-port propose %s --kernel runtime_radius --block 16,16 --rules=stencil-register-rows 2>&1 | FileCheck %s --check-prefix=LOOP
// RUN: not forge-port propose %s --kernel wide --block 16,16 --rules=stencil-register-rows 2>&1 | FileCheck %s --check-prefix=WIDE
// RUN: not forge-port propose %s --kernel row_only --block 16,16 --rules=stencil-register-rows 2>&1 | FileCheck %s --check-prefix=ROWONLY
// RUN: not forge-port propose %s --kernel heat3d --block 32,4,2 --rules=stencil-register-rows 2>&1 | FileCheck %s --check-prefix=SPARSE
// RUN: not forge-port propose %s --kernel march3d --block 32,8 --rules=stencil-register-rows 2>&1 | FileCheck %s --check-prefix=THREED
// RUN: not forge-port propose %s --kernel batch3d --block 32,4,2 --rules=stencil-register-rows 2>&1 | FileCheck %s --check-prefix=BATCH
// RUN: not forge-port propose %s --kernel synced --block 16,16 --rules=stencil-register-rows 2>&1 | FileCheck %s --check-prefix=SYNC
// RUN: not forge-port propose %s --kernel fallback_grid --block 16,16 --rules=stencil-register-rows 2>&1 | FileCheck %s --check-prefix=FBGRID
// RUN: not forge-port propose %s --kernel fallback_first --block 16,16 --rules=stencil-register-rows 2>&1 | FileCheck %s --check-prefix=FBFIRST
// RUN: not forge-port propose %s --kernel fallback_unbounded --block 16,16 --rules=stencil-register-rows 2>&1 | FileCheck %s --check-prefix=FBBOUND
// RUN: not forge-port propose %s --kernel fallback_real --block 16,16 --rules=stencil-register-rows 2>&1 | FileCheck %s --check-prefix=FBREAL
// GRID: stencil-register-rows: not applicable: the spec's grid.y is not known, and the grid must shrink
// LOOP: stencil-register-rows: not applicable: the footprint of 'in' along dimension 1 ('-rad'..'rad') is not a compile-time constant: the register window's size must be one
// WIDE: stencil-register-rows: not applicable: a window of 14 x 13 values for 2 rows per thread is more than the 128 registers the rule allows
// ROWONLY: stencil-register-rows: not applicable: no dimension of the stencil on 'in' moves with threadIdx.y
// The 7-point star with 3D blocks: a window over its 3 x 3 x 3 hull loads
// more (54 for 4 planes) than its outputs read (28).
// SPARSE: stencil-register-rows: not applicable: a window of 6 x 3 x 3 values for 4 planes per thread loads more than the 28 reads of its outputs (7 per output): the footprint fills little of its 3 x 3 x 3 hull
// A 3D footprint whose third dimension is a loop, not threadIdx.z (stencil-z-march's).
// THREED: stencil-register-rows: not applicable: the stencil on 'u' is 3D (3x3x3): the register window is written for footprints over the thread grid (2D over x and y, 3D over x, y and z)
// blockIdx.z used as a batch index beside the plane: a per-plane copy would remap it.
// BATCH: stencil-register-rows: not applicable: 'blockIdx.z' (line {{[0-9]+}}) is used other than in the plane 'blockIdx.z * blockDim.z + threadIdx.z'
// SYNC: stencil-register-rows: not applicable: the body synchronises or shares memory between threads
// A fallback given the thread's indices (specialize-scalar's spelling) runs
// per row only where its body could: not when it reads gridDim.y, uses
// threadIdx.y other than in the row, or stores a row without a bound (rows
// past the original grid would write). One that reads the real blockIdx
// is not given its indices at all: its argument's threadIdx.y stays a use
// outside the row.
// FBGRID: stencil-register-rows: not applicable: 'rows_any_grid', given the thread's indices, reads 'gridDim.y', which the smaller grid changes
// FBFIRST: stencil-register-rows: not applicable: 'rows_any_first', given the thread's indices, uses 'threadIdx.y' (line {{[0-9]+}}) other than in its row
// FBBOUND: stencil-register-rows: not applicable: 'rows_any_unbounded', given the thread's indices, has 'out[y * w + x]' (line {{[0-9]+}}) without a bound along y, so the rows past the original grid would reach it
// FBREAL: stencil-register-rows: not applicable: 'threadIdx.y' (line {{[0-9]+}}) is used other than in the row 'blockIdx.y * blockDim.y + threadIdx.y'

__global__ void blur(const float *in, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  float s = 0.f;
  for (int dy = -1; dy <= 1; ++dy)
    for (int dx = -1; dx <= 1; ++dx)
      s += in[min(max(y + dy, 0), h - 1) * w + min(max(x + dx, 0), w - 1)];
  out[y * w + x] = s / 9.0f;
}

__global__ void runtime_radius(const float *in, float *out, int w, int h, int rad) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  float s = 0.f;
  for (int dy = -rad; dy <= rad; ++dy)
    s += in[min(max(y + dy, 0), h - 1) * w + x];
  out[y * w + x] = s;
}

__global__ void wide(const float *in, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  float s = 0.f;
  for (int dy = -6; dy <= 6; ++dy)
    for (int dx = -6; dx <= 6; ++dx)
      s += in[min(max(y + dy, 0), h - 1) * w + min(max(x + dx, 0), w - 1)];
  out[y * w + x] = s;
}

__global__ void row_only(const float *in, float *out, int n) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  if (x >= n) return;
  out[x] = in[max(x - 1, 0)] + in[x] + in[min(x + 1, n - 1)];
}

__global__ void heat3d(const double *u, double *v, int nx, int ny, int nz) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int j = blockIdx.y * blockDim.y + threadIdx.y;
  int k = blockIdx.z * blockDim.z + threadIdx.z;
  if (i > 0 && i < nx - 1 && j > 0 && j < ny - 1 && k > 0 && k < nz - 1) {
    int c = (k * ny + j) * nx + i;
    v[c] = u[c - 1] + u[c + 1] + u[c - nx] + u[c + nx] + u[c - nx * ny] + u[c + nx * ny] -
           6.0 * u[c];
  }
}

__global__ void march3d(const float *u, float *v, int nx, int ny, int nz) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int j = blockIdx.y * blockDim.y + threadIdx.y;
  if (i < 1 || j < 1 || i >= nx - 1 || j >= ny - 1) return;
  for (int k = 1; k < nz - 1; ++k) {
    float s = 0.f;
    for (int dz = -1; dz <= 1; ++dz)
      for (int dy = -1; dy <= 1; ++dy)
        for (int dx = -1; dx <= 1; ++dx)
          s += u[((k + dz) * ny + j + dy) * nx + i + dx];
    v[(k * ny + j) * nx + i] = s;
  }
}

__global__ void batch3d(const float *u, float *v, int nx, int ny, int nz) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int j = blockIdx.y * blockDim.y + threadIdx.y;
  int k = blockIdx.z * blockDim.z + threadIdx.z;
  if (i < 1 || j < 1 || k < 1 || i >= nx - 1 || j >= ny - 1 || k >= nz - 1) return;
  float s = 0.f;
  for (int dz = -1; dz <= 1; ++dz)
    for (int dy = -1; dy <= 1; ++dy)
      for (int dx = -1; dx <= 1; ++dx)
        s += u[((k + dz) * ny + j + dy) * nx + i + dx];
  v[(k * ny + j) * nx + i] = s + (blockIdx.z == 0 ? 1.f : 0.f);
}

__global__ void synced(const float *in, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  float s = 0.f;
  if (x < w && y < h)
    for (int dy = -1; dy <= 1; ++dy)
      s += in[min(max(y + dy, 0), h - 1) * w + x];
  __syncthreads();
  if (x < w && y < h) out[y * w + x] = s;
}

// The fallbacks: the body of 'blur' for another radius, each with one flaw.
#define FALLBACK_KERNEL(K, CALL)                                                                   \
  __global__ void K(const float *in, float *out, int w, int h, int rad) {                          \
    if (rad != 1) {                                                                                \
      CALL;                                                                                        \
      return;                                                                                      \
    }                                                                                              \
    int x = blockIdx.x * blockDim.x + threadIdx.x;                                                 \
    int y = blockIdx.y * blockDim.y + threadIdx.y;                                                 \
    if (x >= w || y >= h) return;                                                                  \
    float s = 0.f;                                                                                 \
    for (int dy = -1; dy <= 1; ++dy)                                                               \
      for (int dx = -1; dx <= 1; ++dx)                                                             \
        s += in[min(max(y + dy, 0), h - 1) * w + min(max(x + dx, 0), w - 1)];                     \
    out[y * w + x] = s;                                                                            \
  }
#define INDICES make_uint3(threadIdx.x, threadIdx.y, threadIdx.z), make_uint3(blockIdx.x, blockIdx.y, blockIdx.z)

static __device__ __noinline__ void rows_any_grid(const uint3 threadIdx, const uint3 blockIdx,
                                                  const float *in, float *out, int w, int h,
                                                  int rad) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h || y >= gridDim.y * blockDim.y) return;
  out[y * w + x] = in[y * w + x] * rad;
}
FALLBACK_KERNEL(fallback_grid, rows_any_grid(INDICES, in, out, w, h, rad))

static __device__ __noinline__ void rows_any_first(const uint3 threadIdx, const uint3 blockIdx,
                                                   const float *in, float *out, int w, int h,
                                                   int rad) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  out[y * w + x] = threadIdx.y == 0 ? in[y * w + x] : 0.f;
}
FALLBACK_KERNEL(fallback_first, rows_any_first(INDICES, in, out, w, h, rad))

static __device__ __noinline__ void rows_any_unbounded(const uint3 threadIdx, const uint3 blockIdx,
                                                       const float *in, float *out, int w, int h,
                                                       int rad) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w)
    out[y * w + x] = in[x] * rad;
}
FALLBACK_KERNEL(fallback_unbounded, rows_any_unbounded(INDICES, in, out, w, h, rad))

static __device__ __noinline__ void rows_any_real(const uint3 threadIdx, const float *in,
                                                  float *out, int w, int h, int rad) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  out[y * w + x] = in[y * w + x] * rad;
}
FALLBACK_KERNEL(fallback_real, rows_any_real(make_uint3(threadIdx.x, threadIdx.y, threadIdx.z), in, out, w, h, rad))
