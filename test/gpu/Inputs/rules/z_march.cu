// Z-marching 3D stencils (a 2D grid of threads over x-y, each thread
// walking its column along z) in several spellings, for stencil-z-march.
#ifndef ZM_IDX
#define ZM_IDX(i, j, k) ((size_t)(k) * ny * nx + (size_t)(j) * nx + (i))
#endif

// The 7-point Laplacian: early-exit border guard, size_t plane stride.
__global__ void lap3d(const float *__restrict__ in, float *__restrict__ out, int nx, int ny,
                      int nz) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int j = blockIdx.y * blockDim.y + threadIdx.y;
  if (i < 1 || j < 1 || i >= nx - 1 || j >= ny - 1) return;
  size_t plane = (size_t)nx * ny;
  for (int k = 1; k < nz - 1; ++k) {
    size_t c = k * plane + (size_t)j * nx + i;
    out[c] = in[c - 1] + in[c + 1] + in[c - nx] + in[c + nx] + in[c - plane] + in[c + plane] -
             6.0f * in[c];
  }
}

// The same with the index written (k * ny + j) * nx + i, an enclosing if.
__global__ void lap3d_idx(const float *in, float *out, int nx, int ny, int nz) {
  int i = threadIdx.x + blockIdx.x * blockDim.x;
  int j = threadIdx.y + blockIdx.y * blockDim.y;
  if (i > 0 && i < nx - 1 && j > 0 && j < ny - 1) {
    for (int k = 1; k < nz - 1; k++) {
      float v = 0.5f * in[(k * ny + j) * nx + i];
      v += 0.1f * (in[(k * ny + j) * nx + i - 1] + in[(k * ny + j) * nx + i + 1]);
      v += 0.2f * (in[(k * ny + j - 1) * nx + i] + in[(k * ny + j + 1) * nx + i]);
      v += 0.3f * (in[((k - 1) * ny + j) * nx + i] + in[((k + 1) * ny + j) * nx + i]);
      out[(k * ny + j) * nx + i] = v;
    }
  }
}

// Through an index macro, two early returns.
__global__ void lap3d_macro(const float *in, float *out, int nx, int ny, int nz) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int j = blockIdx.y * blockDim.y + threadIdx.y;
  if (i < 1 || i > nx - 2) return;
  if (j < 1 || j > ny - 2) return;
  for (int k = 1; k <= nz - 2; ++k)
    out[ZM_IDX(i, j, k)] = in[ZM_IDX(i - 1, j, k)] + in[ZM_IDX(i + 1, j, k)] +
                           in[ZM_IDX(i, j - 1, k)] + in[ZM_IDX(i, j + 1, k)] +
                           in[ZM_IDX(i, j, k - 1)] + in[ZM_IDX(i, j, k + 1)] -
                           6.0f * in[ZM_IDX(i, j, k)];
}

// A 3x3x3 box with clamped borders in all three dimensions, written with
// loops; every thread inside the image runs all planes.
__global__ void box27(const float *in, float *out, int nx, int ny, int nz) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= nx || y >= ny) return;
  for (int z = 0; z < nz; ++z) {
    float s = 0.0f;
    for (int dz = -1; dz <= 1; ++dz)
      for (int dy = -1; dy <= 1; ++dy)
        for (int dx = -1; dx <= 1; ++dx) {
          int zz = min(max(z + dz, 0), nz - 1);
          int yy = min(max(y + dy, 0), ny - 1);
          int xx = min(max(x + dx, 0), nx - 1);
          s += (1.0f + 0.125f * (dx + 2 * dy + 4 * dz)) * in[((size_t)zz * ny + yy) * nx + xx];
        }
    out[((size_t)z * ny + y) * nx + x] = s;
  }
}

// A fourth-order star (radius 2 along every axis), interior along every
// axis, a long long plane stride.
__global__ void star13(const float *in, float *out, int nx, int ny, int nz) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int j = blockIdx.y * blockDim.y + threadIdx.y;
  if (i < 2 || j < 2 || i >= nx - 2 || j >= ny - 2) return;
  long long sy = nx, sz = (long long)nx * ny;
  for (int k = 2; k < nz - 2; ++k) {
    long long c = k * sz + j * sy + i;
    float v = -2.5f * in[c];
    v += 1.33f * (in[c - 1] + in[c + 1] + in[c - sy] + in[c + sy] + in[c - sz] + in[c + sz]);
    v -= 0.083f * (in[c - 2] + in[c + 2] + in[c - 2 * sy] + in[c + 2 * sy] + in[c - 2 * sz] + in[c + 2 * sz]);
    out[c] = v;
  }
}
