// REQUIRES: cuda
// Z-marching 3D stencils in several spellings (the kernels of
// test/gpu/Inputs/rules/z_march.cu, which the GPU test runs): each is
// rewritten with a register queue along z and the x-y planes in shared
// memory, and the rewrite compiles.
// RUN: forge-port propose %S/../../gpu/Inputs/rules/z_march.cu --kernel lap3d --rules=stencil-z-march --apply -o %t.lap.cu 2>&1 | FileCheck %s --check-prefix=ASSUMED
// RUN: forge-port propose %S/../../gpu/Inputs/rules/z_march.cu --kernel lap3d --rules=stencil-z-march --format=json | FileCheck %s --check-prefix=WHY
// RUN: FileCheck %s --check-prefix=LAP --input-file=%t.lap.cu
// RUN: %nvcc -arch=sm_90 -ptx %t.lap.cu -o - | FileCheck %s --check-prefix=PTX
// RUN: forge-port propose %S/../../gpu/Inputs/rules/z_march.cu --kernel lap3d_idx --block 32,8 --rules=stencil-z-march --apply -o %t.idx.cu
// RUN: FileCheck %s --check-prefix=IDX --input-file=%t.idx.cu
// RUN: %nvcc -arch=sm_90 -ptx %t.idx.cu -o - | FileCheck %s --check-prefix=PTX
// RUN: forge-port propose %S/../../gpu/Inputs/rules/z_march.cu --kernel lap3d_macro --block 16,16 --rules=stencil-z-march --apply -o %t.mac.cu
// RUN: FileCheck %s --check-prefix=MACRO --input-file=%t.mac.cu
// RUN: %nvcc -arch=sm_90 -ptx %t.mac.cu -o - | FileCheck %s --check-prefix=PTX
// RUN: forge-port propose %S/../../gpu/Inputs/rules/z_march.cu --kernel box27 --block 32,8 --rules=stencil-z-march --apply -o %t.box.cu 2>&1 | FileCheck %s --check-prefix=BOXNOTE
// RUN: FileCheck %s --check-prefix=BOX --input-file=%t.box.cu
// RUN: %nvcc -arch=sm_90 -ptx %t.box.cu -o - | FileCheck %s --check-prefix=PTX
// RUN: forge-port propose %S/../../gpu/Inputs/rules/z_march.cu --kernel star13 --block 32,8 --rules=stencil-z-march --apply -o %t.star.cu 2>&1 | FileCheck %s --check-prefix=STARNOTE
// RUN: FileCheck %s --check-prefix=STAR --input-file=%t.star.cu
// RUN: %nvcc -arch=sm_90 -ptx %t.star.cu -o - | FileCheck %s --check-prefix=PTX
// PTX: bar.sync
// PTX: ld.shared.f32

// The probe: run-time loop bounds, an early-exit guard, a size_t plane;
// no block given, so 32 x 8 is assumed and said.
// ASSUMED: applied expert:stencil-z-march: march the 3x3x3 stencil on 'in' along 'k' with a 3-plane register queue and a ring of 1 10 x 34 shared-memory planes
// WHY: 32 x 8 (assumed: the launch's block is not known; give --block or a spec)
// LAP-LABEL: void lap3d(
// LAP: // stencil-z-march: each thread keeps planes k - 1 .. k + 1 of its column of 'in' in registers (in_q),
// LAP: if (blockDim.x != 32 || blockDim.y != 8 || blockDim.z != 1) {
// LAP: if (i < 1 || j < 1 || i >= nx - 1 || j >= ny - 1) return;
// LAP: __shared__ float in_planes[1][10][34];
// LAP-NEXT: float in_q[3];
// LAP-NEXT: int plane2 = 0;
// LAP-NEXT: bool active = true;
// The early return becomes a flag: the thread stays for the loads.
// LAP: if (active && (i < 1 || j < 1 || i >= nx - 1 || j >= ny - 1)) active = false;
// LAP: for (int k = 1; k < nz - 1; ++k) {
// LAP: if (plane2 == 0) {
// LAP: in_q[0] = e1 >= 0 && e1 < (long long)ny && e0 >= 0 && e0 < (long long)nx ? in[e2 * nx * ny + e1 * nx + e0] : 0.0f;
// LAP: long long e23 = (long long)k + 1;
// LAP-NEXT: in_q[2] =
// The halo from global memory, the centre from the queue.
// LAP: if (t < 340 && (tx < 1 || tx >= 33 || ty < 1 || ty >= 9))
// LAP: in_planes[0][threadIdx.y + 1][threadIdx.x + 1] = in_q[1];
// LAP-NEXT: __syncthreads();
// LAP-NEXT: if (active) do {
// LAP: out[c] = in_planes[0][threadIdx.y + 1][threadIdx.x] + in_planes[0][threadIdx.y + 1][threadIdx.x + 2] + in_planes[0][threadIdx.y][threadIdx.x + 1] + in_planes[0][threadIdx.y + 2][threadIdx.x + 1] + in_q[0] + in_q[2] -
// LAP-NEXT: 6.0f * in_q[1];
// LAP-NEXT: } while (0);
// LAP-NEXT: __syncthreads();
// LAP: in_q[q] = in_q[q + 1];
// LAP-NEXT: ++plane2;

// (k * ny + j) * nx + i, the loop inside an if.
// IDX-LABEL: void lap3d_idx(
// IDX: active = active && (i > 0 && i < nx - 1 && j > 0 && j < ny - 1);
// IDX-NEXT: {
// IDX-NEXT: for (int k = 1; k < nz - 1; k++) {
// IDX: float v = 0.5f * in_q[1];
// IDX-NEXT: v += 0.1f * (in_planes[0][threadIdx.y + 1][threadIdx.x] + in_planes[0][threadIdx.y + 1][threadIdx.x + 2]);
// IDX-NEXT: v += 0.2f * (in_planes[0][threadIdx.y][threadIdx.x + 1] + in_planes[0][threadIdx.y + 2][threadIdx.x + 1]);
// IDX-NEXT: v += 0.3f * (in_q[0] + in_q[2]);

// An index macro, two early returns, a body without braces.
// MACRO-LABEL: void lap3d_macro(
// MACRO: __shared__ float in_planes[1][18][18];
// MACRO: if (active && (i < 1 || i > nx - 2)) active = false;
// MACRO-NEXT: if (active && (j < 1 || j > ny - 2)) active = false;
// MACRO: if (active) do out[ZM_IDX(i, j, k)] = in_planes[0][threadIdx.y + 1][threadIdx.x] + in_planes[0][threadIdx.y + 1][threadIdx.x + 2] +
// MACRO: 6.0f * in_q[1]; while (0);

// A 3x3x3 box through loops, clamped on every axis: a ring of three planes.
// BOXNOTE: march the 3x3x3 stencil on 'in' along 'z' with a 3-plane register queue and a ring of 3 10 x 34 shared-memory planes
// BOX-LABEL: void box27(
// BOX: __shared__ float in_planes[3][10][34];
// BOX: long long e2c = e2 < 0 ? 0 : e2 > (long long)nz - 1 ? (long long)nz - 1 : e2;
// BOX: in_planes[(plane + 2) % 3][threadIdx.y + 1][threadIdx.x + 1] = in_q[2];
// BOX: s += (1.0f + 0.125f * (dx + 2 * dy + 4 * dz)) * in_planes[(plane + (dz) + 1) % 3][threadIdx.y + dy + 1][threadIdx.x + dx + 1];

// Radius 2 with a long long plane stride: five planes in registers.
// STARNOTE: march the 5x5x5 stencil on 'in' along 'k' with a 5-plane register queue and a ring of 1 12 x 36 shared-memory planes
// STAR-LABEL: void star13(
// STAR: float in_q[5];
// STAR: long long e2{{[0-9]*}} = (long long)k - 2;
// STAR-NEXT: in_q[0] = e1 >= 0 &&
// STAR: float v = -2.5f * in_q[2];
// STAR-NEXT: v += 1.33f * (in_planes[0][threadIdx.y + 2][threadIdx.x + 1] + in_planes[0][threadIdx.y + 2][threadIdx.x + 3] + in_planes[0][threadIdx.y + 1][threadIdx.x + 2] + in_planes[0][threadIdx.y + 3][threadIdx.x + 2] + in_q[1] + in_q[3]);
// STAR-NEXT: v -= 0.083f * (in_planes[0][threadIdx.y + 2][threadIdx.x] + in_planes[0][threadIdx.y + 2][threadIdx.x + 4] + in_planes[0][threadIdx.y][threadIdx.x + 2] + in_planes[0][threadIdx.y + 4][threadIdx.x + 2] + in_q[0] + in_q[4]);
