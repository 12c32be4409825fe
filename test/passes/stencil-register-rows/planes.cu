// REQUIRES: cuda
// 3D stencils over 3D blocks: each thread computes R consecutive output
// planes (threadIdx.z) from a register window of (R + 2) planes x 3 rows x
// 3 columns, the grid's z divided by R.
// box27: the naive benchmark's 27-point box (utils/bench/naive/box27.cu),
// interior only by an early return, 32 x 4 x 4 blocks: 2 planes from a
// 4 x 3 x 3 window, then 4 from a 6 x 3 x 3 one (hull bounds on each load).
// RUN: forge-port propose %s --spec %S/Inputs/box27_planes.json --rules=stencil-register-rows > %t.box.props
// RUN: FileCheck %s --check-prefix=BOX --input-file=%t.box.props
// RUN: forge-port propose %s --spec %S/Inputs/box27_planes.json --rules=stencil-register-rows --format=json > %t.box.json
// RUN: %python %S/../../Inputs/apply_proposal.py %t.box.json 1 %s > %t.box4.cu
// RUN: FileCheck %s --check-prefix=BOX4 --match-full-lines --input-file=%t.box4.cu
// RUN: %nvcc -arch=sm_90 -ptx %t.box4.cu -o %t.box4.ptx
// RUN: awk '/entry _Z5box27/,/^}/' %t.box4.ptx | grep -c "ld.global" | FileCheck %s --check-prefix=LOADS54
// RUN: not grep -q "ld.local" %t.box4.ptx
// smooth3d: clamped with min/max on every coordinate, weights computed
// from the offsets, size_t strides, double, 16 x 8 x 4 blocks.
// RUN: forge-port propose %s --spec %S/Inputs/smooth3d.json --rules=stencil-register-rows --format=json > %t.sm.json
// RUN: %python %S/../../Inputs/apply_proposal.py %t.sm.json 0 %s > %t.sm2.cu
// RUN: FileCheck %s --check-prefix=SM2 --match-full-lines --input-file=%t.sm2.cu
// RUN: %nvcc -arch=sm_90 -ptx %t.sm2.cu -o %t.sm2.ptx
// RUN: awk '/entry _Z8smooth3d/,/^}/' %t.sm2.ptx | grep -c "ld.global" | FileCheck %s --check-prefix=LOADS36
// BOX: # expert:stencil-register-rows: compute 2 output planes per thread from a 4 x 3 x 3 register window of 'in'
// BOX: loads per output 27 -> 18.00
// BOX: # spec: grid.z -> ceil_div(ceil_div(NZ, 4), 2)
// BOX: # expert:stencil-register-rows: compute 4 output planes per thread from a 6 x 3 x 3 register window of 'in'
// BOX: loads per output 27 -> 13.50
// BOX: # spec: grid.z -> ceil_div(ceil_div(NZ, 4), 4)
// The window: 6 planes from row0 - 1, 3 rows, 3 columns; zero where the
// original reads nothing (outside the volume).
// BOX4:   const long long row0 = 4 * ((long long)blockIdx.z * (long long)blockDim.z + (long long)threadIdx.z);
// BOX4-NEXT:   float in_win[6][3][3];
// BOX4:   for (int i2 = 0; i2 < 6; ++i2) {
// BOX4:     for (int m = 0; m < 3; ++m) {
// BOX4:       for (int j2 = 0; j2 < 3; ++j2) {
// BOX4-NEXT:         long long e2 = row0 - 1 + i2;
// BOX4-NEXT:         long long e1 = (long long)blockIdx.y * (long long)blockDim.y + (long long)threadIdx.y - 1 + m;
// BOX4-NEXT:         long long e0 = (long long)blockIdx.x * (long long)blockDim.x + (long long)threadIdx.x - 1 + j2;
// BOX4-NEXT:         in_win[i2][m][j2] = e2 >= 0 && e2 < (long long)nz && e1 >= 0 && e1 < (long long)ny && e0 >= 0 && e0 < (long long)nx ? in[e2 * ny * nx + e1 * nx + e0] : 0.0f;
// The body per plane: k is the plane's, the reads are window elements.
// BOX4:   for (int r = 0; r < 4; ++r)
// BOX4-NEXT:     [&]() {
// BOX4-NEXT:       int i = blockIdx.x * blockDim.x + threadIdx.x;
// BOX4-NEXT:       int j = blockIdx.y * blockDim.y + threadIdx.y;
// BOX4-NEXT:       int k = (blockIdx.z * 4) * blockDim.z + (threadIdx.z * 4 + r);
// BOX4-NEXT:       if (i < 1 || j < 1 || k < 1 || i >= nx - 1 || j >= ny - 1 || k >= nz - 1) return;
// BOX4:             s += in_win[r + dz + 1][dy + 1][dx + 1];
// BOX4-NEXT:       out[(k * ny + j) * nx + i] = s / 27.f;
// The clamps are the reads' own, on each coordinate.
// SM2:   double u_win[4][3][3];
// SM2:         long long e2c = e2 < 0 ? 0 : e2 > (long long)nz - 1 ? (long long)nz - 1 : e2;
// SM2-NEXT:         long long e1c = e1 < 0 ? 0 : e1 > (long long)ny - 1 ? (long long)ny - 1 : e1;
// SM2-NEXT:         long long e0c = e0 < 0 ? 0 : e0 > (long long)nx - 1 ? (long long)nx - 1 : e0;
// SM2-NEXT:         u_win[i][m][j] = 0 <= (long long)nz - 1 && 0 <= (long long)ny - 1 && 0 <= (long long)nx - 1 ? u[e2c * nx * ny + e1c * nx + e0c] : 0.0;
// SM2:       const int z = (threadIdx.z * 2 + r) + (blockIdx.z * 2) * blockDim.z;
// SM2:             acc += w * u_win[r + c + 1][b + 1][a + 1];
// LOADS54: 54
// LOADS36: 36

// 27-point box over the interior of a volume (an early return), 3D blocks.
__global__ void box27(const float *in, float *out, int nx, int ny, int nz) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int j = blockIdx.y * blockDim.y + threadIdx.y;
  int k = blockIdx.z * blockDim.z + threadIdx.z;
  if (i < 1 || j < 1 || k < 1 || i >= nx - 1 || j >= ny - 1 || k >= nz - 1) return;
  float s = 0.f;
  for (int dz = -1; dz <= 1; dz++)
    for (int dy = -1; dy <= 1; dy++)
      for (int dx = -1; dx <= 1; dx++)
        s += in[((k + dz) * ny + (j + dy)) * nx + (i + dx)];
  out[(k * ny + j) * nx + i] = s / 27.f;
}

// A clamped 3x3x3 smoothing with weights by distance, size_t strides.
__global__ void smooth3d(const double *__restrict__ u, double *__restrict__ v, int nx, int ny,
                         int nz) {
  const int x = threadIdx.x + blockIdx.x * blockDim.x;
  const int y = threadIdx.y + blockIdx.y * blockDim.y;
  const int z = threadIdx.z + blockIdx.z * blockDim.z;
  if (x >= nx || y >= ny || z >= nz) return;
  const size_t sy = nx, sz = (size_t)nx * ny;
  double acc = 0.0;
  for (int c = -1; c <= 1; ++c) {
    int zz = min(max(z + c, 0), nz - 1);
    for (int b = -1; b <= 1; ++b) {
      int yy = min(max(y + b, 0), ny - 1);
      for (int a = -1; a <= 1; ++a) {
        int xx = min(max(x + a, 0), nx - 1);
        double w = (a == 0 ? 2.0 : 1.0) * (b == 0 ? 2.0 : 1.0) * (c == 0 ? 2.0 : 1.0);
        acc += w * u[zz * sz + yy * sy + xx];
      }
    }
  }
  v[z * sz + y * sy + x] = acc / 64.0;
}
