// A 7-point 3D stencil on the interior of an nx x ny x nz grid: a 3D block,
// one tunable per dimension, and every buffer nx * ny * nz (the reach of the
// interior, nx * ny * nz - nx - 1, rounded up to what a person writes). The
// output is written only inside, so it is inout.
// RUN: forge-port spec %s --kernel heat -- %cuda_mock_flags > %t.json
// RUN: FileCheck %s --input-file=%t.json
__global__ void heat(const double *u, double *v, int nx, int ny, int nz, double c) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int j = blockIdx.y * blockDim.y + threadIdx.y;
  int k = blockIdx.z * blockDim.z + threadIdx.z;
  if (i > 0 && i < nx - 1 && j > 0 && j < ny - 1 && k > 0 && k < nz - 1) {
    size_t p = ((size_t)k * ny + j) * nx + i;
    v[p] = u[p] + c * (u[p - 1] + u[p + 1] + u[p - nx] + u[p + nx] + u[p - nx * ny] +
                       u[p + nx * ny] - 6.0 * u[p]);
  }
}
// The sizes of a count of degree 3 are 256 each (2^24 elements).
// CHECK:      "sizes": {
// CHECK-NEXT:   "nx": 256,
// CHECK-NEXT:   "ny": 256,
// CHECK-NEXT:   "nz": 256
// CHECK:        "name": "u",
// CHECK-NEXT:   "dtype": "f64",
// CHECK-NEXT:   "count": "nx * ny * nz",
// CHECK-NEXT:   "role": "in",
// CHECK:        "name": "v",
// CHECK-NEXT:   "dtype": "f64",
// CHECK-NEXT:   "count": "nx * ny * nz",
// CHECK-NEXT:   "role": "inout",
// CHECK:      "grid": [
// CHECK-NEXT:   "ceil_div(nx - 1, BX)",
// CHECK-NEXT:   "ceil_div(ny - 1, BY)",
// CHECK-NEXT:   "ceil_div(nz - 1, BZ)"
// CHECK:      "block": [
// CHECK-NEXT:   "BX",
// CHECK-NEXT:   "BY",
// CHECK-NEXT:   "BZ"
// CHECK:      "constraints": [
// CHECK-NEXT:   "BX * BY * BZ % 32 == 0",
// CHECK-NEXT:   "BX * BY * BZ <= 1024",
// CHECK-NEXT:   "BZ <= 64"
// CHECK:      "grid.x covers nx - 1 threads, from 'i < nx - 1' (line {{[0-9]+}})",
// CHECK:      "'u' has nx * ny * nz elements: rounded up from the largest index + 1 of 'u[p + nx * ny]' (line {{[0-9]+}})",
// CHECK:      "'v' is written only in part
// A scalar that is no size keeps a plain value.
// CHECK-NOT:  "value": "c"
