// REQUIRES: cuda
// One plane per block along z becomes a loop of 16 planes per block, and
// the expert proposer offers stencil-z-march on that loop composed with
// it (never the loop alone): one proposal whose edit holds both, grid.z
// divided by 16. The rewrite compiles.
// RUN: forge-port propose %s --spec %S/Inputs/lap_planes.json --rules=plane-loop,stencil-z-march > %t.props 2>&1
// RUN: FileCheck %s --check-prefix=PROP --input-file=%t.props
// RUN: forge-port propose %s --spec %S/Inputs/lap_planes.json --rules=plane-loop,stencil-z-march --apply -o %t.cu
// RUN: FileCheck %s --check-prefix=FIX --input-file=%t.cu
// RUN: %nvcc -arch=sm_90 -c %t.cu -o %t.o
// Without stencil-z-march in the selection the loop is not offered.
// RUN: not forge-port propose %s --spec %S/Inputs/lap_planes.json --rules=plane-loop 2>&1 | FileCheck %s --check-prefix=ALONE
__global__ void lap_planes(const float *in, float *out, int nx, int ny, int nz) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y,
      z = blockIdx.z;
  if (x < 1 || y < 1 || z < 1 || x >= nx - 1 || y >= ny - 1 || z >= nz - 1) return;
  size_t s = (size_t)nx * ny, id = z * s + y * nx + x;
  out[id] = in[id - 1] + in[id + 1] + in[id - nx] + in[id + nx] + in[id - s] + in[id + s] -
            6 * in[id];
}
// PROP: # expert:plane-loop+stencil-z-march: march the {{.*}} stencil on 'in' along 'z' {{.*}}, on the planes of blockIdx.z as a loop of 16 per block
// PROP: # spec: grid.z -> ceil_div(Z, 16)
// PROP: # spec: why: each block walks 16 planes, so ceil_div(grid.z, 16) blocks along z cover the original grid's 64 planes; the planes past them are ones the guard stops (63 admitted)
// PROP-NOT: # expert:plane-loop:
// FIX: int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
// FIX-NEXT: if (x < 1 || y < 1 || x >= nx - 1 || y >= ny - 1) return;
// FIX-NEXT: // plane-loop: this block walks 16 planes along z ('z'); the guard's tests of 'z' are the loop's bounds.
// FIX-NEXT: for (int z = max((int)blockIdx.z * 16, (int)(1)); z < min((int)blockIdx.z * 16 + 16, (int)(nz - 1)); ++z) {
// FIX: __shared__ float in_planes
// FIX: if (active && (x < 1 || y < 1 || x >= nx - 1 || y >= ny - 1)) active = false;
// FIX-NEXT: // plane-loop: this block walks 16 planes along z ('z'); the guard's tests of 'z' are the loop's bounds.
// ALONE: plane-loop: not applicable: it exists to enable stencil-z-march, which the rule selection leaves out
