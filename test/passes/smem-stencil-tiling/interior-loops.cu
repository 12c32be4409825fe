// REQUIRES: cuda
// Stencils whose offsets come from loops inside one guard on the thread's
// position (`if (x >= 2 && x < w - 2 ...)`, or an early return): the guard
// bounds every element read with the offsets at their extremes (x < w - 2
// and dx <= 2 give e < w), so the tile is loaded where e < w, not declined
// as unbounded. A read with a bound of its own (`p < n` inside the loop)
// keeps that one (template.cu).
// RUN: forge-port propose %S/../../gpu/Inputs/rules/stencil_interior.cu --kernel mean5 --block 32,8 --rules=smem-stencil-tiling --apply -o %t.mean5.cu 2>&1 | FileCheck %s --check-prefix=NOTE5
// RUN: FileCheck %s --check-prefix=MEAN5 --input-file=%t.mean5.cu
// RUN: forge-port propose %S/../../gpu/Inputs/rules/stencil_interior.cu --kernel box27 --block 32,4,4 --rules=smem-stencil-tiling --apply -o %t.box27.cu 2>&1 | FileCheck %s --check-prefix=NOTE27
// RUN: FileCheck %s --check-prefix=BOX27 --input-file=%t.box27.cu
// RUN: %nvcc -arch=sm_90 -c %t.mean5.cu -o %t.mean5.o
// RUN: %nvcc -arch=sm_90 -c %t.box27.cu -o %t.box27.o
// NOTE5: applied expert:smem-stencil-tiling: stage 'img' in a 12 x 36 shared-memory tile (the 32 x 8 block's outputs and their halo)
// MEAN5: __shared__ float img_tile[12][36];
// MEAN5: img_v[k] = t < 432 && e1 >= 0 && e1 < (long long)h && e0 >= 0 && e0 < (long long)w ? img[e1 * w + e0] : 0.0f;
// MEAN5: acc += img_tile[threadIdx.y + dy + 2][threadIdx.x + dx + 2];
// NOTE27: applied expert:smem-stencil-tiling: stage 'in' in a 6 x 6 x 34 shared-memory tile (the 32 x 4 x 4 block's outputs and their halo)
// BOX27: __shared__ float in_tile[6][6][34];
// BOX27: in_v[k2] = t < 1224 && e2 >= 0 && e2 < (long long)nz && e1 >= 0 && e1 < (long long)ny && e0 >= 0 && e0 < (long long)nx ? in[e2 * ny * nx + e1 * nx + e0] : 0.0f;
// BOX27: s += in_tile[threadIdx.z + dz + 1][threadIdx.y + dy + 1][threadIdx.x + dx + 1];
