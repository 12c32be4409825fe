// plane-loop declines, with the reason, where a loop over planes would
// change what the kernel computes or where there is nothing to march.
// RUN: not forge-port propose %s --spec %S/Inputs/box27.json --rules=plane-loop,stencil-z-march 2>&1 | FileCheck %s --check-prefix=TIDZ
// RUN: not forge-port propose %s --spec %S/Inputs/no_top.json --rules=plane-loop,stencil-z-march 2>&1 | FileCheck %s --check-prefix=NOTOP
// RUN: not forge-port propose %s --spec %S/Inputs/shallow.json --rules=plane-loop,stencil-z-march 2>&1 | FileCheck %s --check-prefix=SHALLOW
// RUN: not forge-port propose %s --spec %S/Inputs/returns.json --rules=plane-loop,stencil-z-march 2>&1 | FileCheck %s --check-prefix=RET
// RUN: not forge-port propose %s --spec %S/Inputs/twice.json --rules=plane-loop,stencil-z-march 2>&1 | FileCheck %s --check-prefix=TWICE
// RUN: not forge-port propose %s --spec %S/Inputs/wide_z.json --rules=plane-loop,stencil-z-march 2>&1 | FileCheck %s --check-prefix=WIDE
// RUN: not forge-port propose %s --spec %S/Inputs/counted.json --rules=plane-loop,stencil-z-march 2>&1 | FileCheck %s --check-prefix=COUNTED
// The march declines the loop of a kernel that is no stencil.
// RUN: not forge-port propose %s --spec %S/Inputs/copy_planes.json --rules=plane-loop,stencil-z-march 2>&1 | FileCheck %s --check-prefix=COPY

__global__ void box27(const float *in, float *out, int nx, int ny, int nz) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int j = blockIdx.y * blockDim.y + threadIdx.y;
  int k = blockIdx.z * blockDim.z + threadIdx.z;
  if (i < 1 || j < 1 || k < 1 || i >= nx - 1 || j >= ny - 1 || k >= nz - 1) return;
  out[(k * ny + j) * nx + i] = in[((k - 1) * ny + j) * nx + i] + in[((k + 1) * ny + j) * nx + i];
}
// TIDZ: plane-loop: not applicable: the kernel reads 'blockDim.z': one plane per block along z is 'blockIdx.z' alone

__global__ void no_top(const float *in, float *out, int nx, int ny, int nz) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  int z = blockIdx.z;
  if (x < 1 || y < 1 || z < 1 || x >= nx - 1 || y >= ny - 1) return;
  size_t s = (size_t)nx * ny, id = z * s + y * nx + x;
  out[id] = in[id - s] + in[id + s];
}
// NOTOP: plane-loop: not applicable: no guard bounds 'z' from above: the chunks of planes past the original grid would run

__global__ void shallow(const float *in, float *out, int nx, int ny, int nz) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  int z = blockIdx.z;
  if (x < 1 || y < 1 || z < 1 || x >= nx - 1 || y >= ny - 1 || z >= nz - 1) return;
  size_t s = (size_t)nx * ny, id = z * s + y * nx + x;
  out[id] = in[id - s] + in[id + s];
}
// SHALLOW: plane-loop: not applicable: the spec's grid has 56 planes and the guard admits 63: the last chunk would run planes the original grid does not

__global__ void returns(const float *in, float *out, int nx, int ny, int nz) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  int z = blockIdx.z;
  if (x < 1 || y < 1 || z < 1 || x >= nx - 1 || y >= ny - 1 || z >= nz - 1) return;
  size_t s = (size_t)nx * ny, id = z * s + y * nx + x;
  if (in[id] < 0) return;
  out[id] = in[id - s] + in[id + s];
}
// RET: plane-loop: not applicable: a 'return' (line {{[0-9]+}}) inside the planes' work: every thread must run every plane

__global__ void twice(const float *in, float *out, int nx, int ny, int nz) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  int z = blockIdx.z;
  if (x < 1 || y < 1 || z < 1 || x >= nx - 1 || y >= ny - 1 || z >= nz - 1) return;
  size_t s = (size_t)nx * ny, id = blockIdx.z * s + y * nx + x;
  out[id] = in[id - s] + in[id + s];
}
// TWICE: plane-loop: not applicable: 'blockIdx.z' is read more than once

__global__ void wide_z(const float *in, float *out, int nx, int ny, int nz) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  long z = blockIdx.z;
  if (x < 1 || y < 1 || z < 1 || x >= nx - 1 || y >= ny - 1 || z >= nz - 1) return;
  size_t s = (size_t)nx * ny, id = z * s + y * nx + x;
  out[id] = in[id - s] + in[id + s];
}
// WIDE: plane-loop: not applicable: 'z' is 'long': the loop is written for int and unsigned planes

__global__ void copy_planes(const float *in, float *out, int nx, int ny, int nz) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  int z = blockIdx.z;
  if (x >= nx || y >= ny || z >= nz) return;
  size_t id = (size_t)z * nx * ny + (size_t)y * nx + x;
  out[id] = 2.0f * in[id];
}
// COPY: plane-loop: not applicable: stencil-z-march declined its result (stencil-z-march: {{.+}})

__global__ void counted(const float *in, float *out, int *visits, int nx, int ny, int nz) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  atomicAdd(visits, 1);
  int z = blockIdx.z;
  if (x < 1 || y < 1 || z < 1 || x >= nx - 1 || y >= ny - 1 || z >= nz - 1) return;
  size_t s = (size_t)nx * ny, id = z * s + y * nx + x;
  out[id] = in[id - s] + in[id + s];
}
// COUNTED: plane-loop: not applicable: the statement at line {{[0-9]+}}, in front of the planes' loop, {{.*}}atomicAdd{{.*}}: it would run once per 16 planes instead of once per plane
