// REQUIRES: cuda
// A 3D 7-point stencil (interior only, strides through size_t locals) and
// a batched 2D one whose batch offset (blockIdx.z * w * h) is part of the
// row coordinate.
// RUN: forge-port propose %s --kernel heat3d --block 32,4,4 --rules=smem-stencil-tiling --apply -o %t.3d.cu 2>&1 \
// RUN:   | FileCheck %s --check-prefix=NOTE
// RUN: FileCheck %s --check-prefix=HEAT --match-full-lines --input-file=%t.3d.cu
// RUN: %nvcc -arch=sm_90 -ptx %t.3d.cu -o - | FileCheck %s --check-prefix=PTX
// RUN: forge-port propose %s --kernel batched --block 32,8 --rules=smem-stencil-tiling --apply -o %t.b.cu
// RUN: FileCheck %s --check-prefix=BATCH --match-full-lines --input-file=%t.b.cu
// RUN: %nvcc -arch=sm_90 -ptx %t.b.cu -o - | FileCheck %s --check-prefix=PTX
// RUN: forge-port propose %s --kernel plane3d --block 32,8 --rules=smem-stencil-tiling --apply -o %t.p.cu 2>&1 \
// RUN:   | FileCheck %s --check-prefix=PLANENOTE
// RUN: FileCheck %s --check-prefix=PLANE --match-full-lines --input-file=%t.p.cu
// RUN: %nvcc -arch=sm_90 -ptx %t.p.cu -o - | FileCheck %s --check-prefix=PTX
// PTX: bar.sync
// PTX: ld.shared.f32

__global__ void heat3d(const float *a, float *b, int nx, int ny, int nz) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  int z = blockIdx.z * blockDim.z + threadIdx.z;
  if (x < 1 || y < 1 || z < 1 || x >= nx - 1 || y >= ny - 1 || z >= nz - 1) return;
  size_t id = ((size_t)z * ny + y) * nx + x;
  size_t sx = 1, sy = nx, sz = (size_t)nx * ny;
  b[id] = a[id] * -6.0f + a[id - sx] + a[id + sx] + a[id - sy] + a[id + sy] + a[id - sz] + a[id + sz];
}
// NOTE: forge-port: note: applied expert:smem-stencil-tiling: stage 'a' in a 6 x 6 x 34 shared-memory tile (the 32 x 4 x 4 block's outputs and their halo)
// HEAT:   if (blockDim.x != 32 || blockDim.y != 4 || blockDim.z != 4) {
// HEAT:   __shared__ float a_tile[6][6][34];
// HEAT:       int t = (threadIdx.z * 4 + threadIdx.y) * 32 + threadIdx.x + k * 512;
// HEAT-NEXT:       long long e2 = 4 * (long long)blockIdx.z + t / 34 / 6 - 1;
// HEAT-NEXT:       long long e1 = 4 * (long long)blockIdx.y + t / 34 % 6 - 1;
// HEAT-NEXT:       long long e0 = 32 * (long long)blockIdx.x + t % 34 - 1;
// HEAT-NEXT:       a_v[k] = t < 1224 && e2 >= 0 && e2 < (long long)nz && e1 >= 0 && e1 < (long long)ny && e0 >= 0 && e0 < (long long)nx ? a[e2 * ny * nx + e1 * nx + e0] : 0.0f;
// HEAT:         a_tile[t / 34 / 6][t / 34 % 6][t % 34] = a_v[k];
// HEAT:   b[id] = a_tile[threadIdx.z + 1][threadIdx.y + 1][threadIdx.x + 1] * -6.0f + a_tile[threadIdx.z + 1][threadIdx.y + 1][threadIdx.x] + a_tile[threadIdx.z + 1][threadIdx.y + 1][threadIdx.x + 2] + a_tile[threadIdx.z + 1][threadIdx.y][threadIdx.x + 1] + a_tile[threadIdx.z + 1][threadIdx.y + 2][threadIdx.x + 1] + a_tile[threadIdx.z][threadIdx.y + 1][threadIdx.x + 1] + a_tile[threadIdx.z + 2][threadIdx.y + 1][threadIdx.x + 1];

__global__ void batched(const float *in, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  int b = blockIdx.z;
  if (x >= 1 && x < w - 1 && y >= 1 && y < h - 1) {
    const float *p = in + (size_t)b * w * h;
    out[(size_t)b * w * h + y * w + x] = p[(y - 1) * w + x] + p[(y + 1) * w + x] + p[y * w + x - 1] + p[y * w + x + 1];
  }
}
// BATCH:   __shared__ float in_tile[10][34];
// BATCH:       long long e1 = 8 * (long long)blockIdx.y + (long long)blockIdx.z * h + t / 34 - 1;
// BATCH-NEXT:       long long e0 = 32 * (long long)blockIdx.x + t % 34 - 1;
// BATCH-NEXT:       in_v[k] = t < 340 && e1 >= (long long)blockIdx.z * h && e1 < (long long)blockIdx.z * h + h && e0 >= 0 && e0 < (long long)w ? in[e1 * w + e0] : 0.0f;
// BATCH:     out[(size_t)b * w * h + y * w + x] = in_tile[threadIdx.y][threadIdx.x + 1] + in_tile[threadIdx.y + 2][threadIdx.x + 1] + in_tile[threadIdx.y + 1][threadIdx.x] + in_tile[threadIdx.y + 1][threadIdx.x + 2];

// One z-plane per block (z = blockIdx.z; no thread moves along z): the
// model still sees the 3D footprint (reuse 5, within a plane), and the tile
// holds the planes above and below the block's.
__global__ void plane3d(const float *in, float *out, int nx, int ny, int nz) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y,
      z = blockIdx.z;
  if (x < 1 || y < 1 || z < 1 || x >= nx - 1 || y >= ny - 1 || z >= nz - 1) return;
  size_t s = (size_t)nx * ny, id = z * s + y * nx + x;
  out[id] = in[id - 1] + in[id + 1] + in[id - nx] + in[id + nx] + in[id - s] + in[id + s] - 6 * in[id];
}
// PLANENOTE: applied expert:smem-stencil-tiling: stage 'in' in a 3 x 10 x 34 shared-memory tile (the 32 x 8 block's outputs and their halo)
// PLANE:   __shared__ float in_tile[3][10][34];
// PLANE:       long long e2 = (long long)blockIdx.z + t / 34 / 10 - 1;
// PLANE:   out[id] = in_tile[1][threadIdx.y + 1][threadIdx.x] + in_tile[1][threadIdx.y + 1][threadIdx.x + 2] + in_tile[1][threadIdx.y][threadIdx.x + 1] + in_tile[1][threadIdx.y + 2][threadIdx.x + 1] + in_tile[0][threadIdx.y + 1][threadIdx.x + 1] + in_tile[2][threadIdx.y + 1][threadIdx.x + 1] - 6 * in_tile[1][threadIdx.y + 1][threadIdx.x + 1];
