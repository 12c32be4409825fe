// REQUIRES: cuda
// 3D stencils over 3D blocks: each thread computes R consecutive output
// planes (threadIdx.z) from a register window of (R + 2) planes x 3 rows x
// 3 columns, the grid's z divided by R.
// The kernels of test/gpu/Inputs/rules/register_planes.cu (which the GPU
// and CPU-emulated tests run). box_interior: the naive benchmark's 27-point
// box (utils/bench/naive/box27.cu), interior only by an early return,
// 32 x 4 x 4 blocks: 2 planes from a 4 x 3 x 3 window, then 4 from a
// 6 x 3 x 3 one (hull bounds on each load).
// RUN: forge-port propose %S/../../gpu/Inputs/rules/register_planes.cu --spec %S/../../gpu/Inputs/rules/register_planes/box_interior.json --rules=stencil-register-rows > %t.box.props
// RUN: FileCheck %s --check-prefix=BOX --input-file=%t.box.props
// RUN: forge-port propose %S/../../gpu/Inputs/rules/register_planes.cu --spec %S/../../gpu/Inputs/rules/register_planes/box_interior.json --rules=stencil-register-rows --format=json > %t.box.json
// RUN: %python %S/../../Inputs/apply_proposal.py %t.box.json 1 %S/../../gpu/Inputs/rules/register_planes.cu > %t.box4.cu
// RUN: FileCheck %s --check-prefix=BOX4 --match-full-lines --input-file=%t.box4.cu
// RUN: %nvcc -arch=sm_90 -ptx %t.box4.cu -o %t.box4.ptx
// RUN: awk '/entry _Z12box_interior/,/^}/' %t.box4.ptx | grep -c "ld.global" | FileCheck %s --check-prefix=LOADS54
// RUN: not grep -q "ld.local" %t.box4.ptx
// smooth_clamped: clamped with min/max on every coordinate, weights
// computed from the offsets, size_t strides.
// RUN: forge-port propose %S/../../gpu/Inputs/rules/register_planes.cu --spec %S/../../gpu/Inputs/rules/register_planes/smooth_clamped.json --rules=stencil-register-rows --format=json > %t.sm.json
// RUN: %python %S/../../Inputs/apply_proposal.py %t.sm.json 0 %S/../../gpu/Inputs/rules/register_planes.cu > %t.sm2.cu
// RUN: FileCheck %s --check-prefix=SM2 --match-full-lines --input-file=%t.sm2.cu
// RUN: %nvcc -arch=sm_90 -ptx %t.sm2.cu -o %t.sm2.ptx
// RUN: awk '/entry _Z14smooth_clamped/,/^}/' %t.sm2.ptx | grep -c "ld.global" | FileCheck %s --check-prefix=LOADS36
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
// SM2:   float u_win[4][3][3];
// SM2:         long long e2c = e2 < 0 ? 0 : e2 > (long long)nz - 1 ? (long long)nz - 1 : e2;
// SM2-NEXT:         long long e1c = e1 < 0 ? 0 : e1 > (long long)ny - 1 ? (long long)ny - 1 : e1;
// SM2-NEXT:         long long e0c = e0 < 0 ? 0 : e0 > (long long)nx - 1 ? (long long)nx - 1 : e0;
// SM2-NEXT:         u_win[i][m][j] = 0 <= (long long)nz - 1 && 0 <= (long long)ny - 1 && 0 <= (long long)nx - 1 ? u[e2c * nx * ny + e1c * nx + e0c] : 0.0f;
// SM2:       const int z = (threadIdx.z * 2 + r) + (blockIdx.z * 2) * blockDim.z;
// SM2:             acc += w * u_win[r + c + 1][b + 1][a + 1];
// LOADS54: 54
// LOADS36: 36
