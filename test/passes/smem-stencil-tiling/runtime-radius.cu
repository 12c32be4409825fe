// REQUIRES: cuda
// Stencils whose radius or mask width is a kernel parameter (PMPP's basic
// 2D convolution with 'r = mask_width / 2', a symmetric '-r..r' loop, the
// 1D convolution; the kernels of test/gpu/Inputs/rules/stencil_runtime.cu,
// which the GPU test runs): the footprint is a form over the parameter, the tile is
// declared for halos up to 16 (or the spec's value when larger) and a
// wider one runs the original code, as another block shape does.
// RUN: forge-port propose %S/../../gpu/Inputs/rules/stencil_runtime.cu --kernel conv2d_basic --block 16,16 --rules=smem-stencil-tiling --apply -o %t.2d.cu 2>&1 | FileCheck %s --check-prefix=NOTE2D
// RUN: FileCheck %s --check-prefix=CONV2D --input-file=%t.2d.cu
// RUN: forge-port propose %t.2d.cu --kernel box_r --block 32,8 --rules=smem-stencil-tiling --apply -o %t.box.cu
// RUN: FileCheck %s --check-prefix=BOX --input-file=%t.box.cu
// RUN: forge-port propose %t.box.cu --kernel conv1d --block 256 --rules=smem-stencil-tiling --apply -o %t.1d.cu
// RUN: FileCheck %s --check-prefix=CONV1D --input-file=%t.1d.cu
// A spec that gives a wider mask: the tile is declared for it.
// RUN: forge-port propose %S/../../gpu/Inputs/rules/stencil_runtime.cu --spec %S/Inputs/conv1d-wide.json --rules=smem-stencil-tiling --apply -o %t.wide.cu 2>&1 | FileCheck %s --check-prefix=NOTEWIDE
// RUN: FileCheck %s --check-prefix=WIDE --input-file=%t.wide.cu
// RUN: %nvcc -arch=sm_90 -c %t.1d.cu -o %t.o
// RUN: %nvcc -arch=sm_90 -c %t.wide.cu -o %t.wide.o
// With the spec's grid, the second proposal: 4 rows of outputs per thread,
// the tile 4 times as tall, grid.y divided by 4.
// RUN: forge-port propose %S/../../gpu/Inputs/rules/stencil_runtime.cu --spec %S/Inputs/conv2d-basic.json --rules=smem-stencil-tiling --format=json > %t.rows.json
// RUN: %python %S/../../gpu/Inputs/rules/apply_proposal.py %t.rows.json 1 %S/../../gpu/Inputs/rules/stencil_runtime.cu %t.rows.cu
// RUN: FileCheck %s --check-prefix=ROWS --input-file=%t.rows.cu
// RUN: FileCheck %s --check-prefix=ROWSPEC --input-file=%t.rows.json
// RUN: %nvcc -arch=sm_90 -c %t.rows.cu -o %t.rows.o
// The analysis: a footprint over the parameter.
// RUN: forge-port analyze %S/../../gpu/Inputs/rules/stencil_runtime.cu --kernel conv2d_basic | FileCheck %s --check-prefix=MODEL
// A run-time loop that walks the thread's row is not a radius.
// RUN: forge-port analyze %S/preconditions.cu --kernel row_walk | FileCheck %s --check-prefix=WALK

// NOTE2D: applied expert:smem-stencil-tiling: stage 'img' in a (mw + 15) x (mw + 15) shared-memory tile (the 16 x 16 block's outputs and their halo)
// CONV2D-LABEL: void conv2d_basic(
// CONV2D: // The tile holds a halo of up to 16 elements: a wider mask runs the original code too.
// CONV2D-NEXT: if (blockDim.x != 16 || blockDim.y != 16 || blockDim.z != 1 || (mw - 1) < 0 || (mw - 1) > 16) {
// CONV2D: __shared__ float img_tile[32][{{[0-9]+}}];
// The loader walks the run-time extents with the block's threads: no
// division by a run-time row length.
// CONV2D: for (int c1 = threadIdx.y; c1 < (mw + 15); c1 += 16) {
// CONV2D-NEXT: for (int c0 = threadIdx.x; c0 < (mw + 15); c0 += 16) {
// CONV2D-NEXT: long long e1 = 16 * (long long)blockIdx.y - (((long long)mw) / (2)) + c1;
// CONV2D-NEXT: long long e0 = 16 * (long long)blockIdx.x - (((long long)mw) / (2)) + c0;
// CONV2D-NEXT: img_tile[c1][c0] = e1 >= 0 && e1 < (long long)h && e0 >= 0 && e0 < (long long)w ? img[e1 * w + e0] : 0.0f;
// CONV2D: acc += img_tile[threadIdx.y + i][threadIdx.x + j] * mask[i * mw + j];
// BOX-LABEL: void box_r(
// BOX: if (blockDim.x != 32 || blockDim.y != 8 || blockDim.z != 1 || (2 * r) < 0 || (2 * r) > 16) {
// BOX: __shared__ float in_tile[24][{{[0-9]+}}];
// BOX: for (int c1 = threadIdx.y; c1 < (2 * r + 8); c1 += 8) {
// BOX-NEXT: for (int c0 = threadIdx.x; c0 < (2 * r + 32); c0 += 32) {
// BOX: s += in_tile[threadIdx.y + dy + r][threadIdx.x + r + dx];
// CONV1D-LABEL: void conv1d(
// CONV1D: if (blockDim.x != 256 || blockDim.y != 1 || blockDim.z != 1 || (mask_width - 1) < 0 || (mask_width - 1) > 16) {
// CONV1D: __shared__ float N_tile[272];
// CONV1D: for (int c0 = threadIdx.x; c0 < (mask_width + 255); c0 += 256) {
// CONV1D: Pvalue += N_tile[threadIdx.x + j] * M[j];
// NOTEWIDE: applied expert:smem-stencil-tiling
// WIDE-LABEL: void conv1d(
// WIDE: (mask_width - 1) < 0 || (mask_width - 1) > 40) {
// WIDE: __shared__ float N_tile[296];
// ROWS-LABEL: void conv2d_basic(
// ROWS: if (blockDim.x != 16 || blockDim.y != 16 || blockDim.z != 1 || (mw - 1) < 0 || (mw - 1) > 16) {
// ROWS: __shared__ float img_tile[80][{{[0-9]+}}];
// ROWS: for (int c1 = threadIdx.y; c1 < (mw + 63); c1 += 16) {
// ROWS: for (int ky = 0; ky < 4; ++ky)
// ROWSPEC: "grid.y": "ceil_div(ceil_div(H, 16), 4)"
// MODEL: load img[y * w + x] (float): coalesced; footprint mwxmw (radius ?), reuse mw * mw
// WALK: load in[y * w + k] (float): strided by w; guarded by
