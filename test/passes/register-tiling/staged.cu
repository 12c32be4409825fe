// REQUIRES: cuda
// Shared-memory tiled products (PMPP's kernel and its variants) are the
// model's MatrixProduct with a Staging: each tile stands for the global
// elements its fill loads, so register-tiling rewrites them from the
// global operands as it rewrites the naive form, and the user's tiles go.
// The kernels are in Inputs/staged.cu; every rewrite compiles (one nvcc
// call).
//
// PMPP's kernel checks no bounds: the rows and columns come from the
// spec's grid (W / 16 blocks of 16: (Width / 16) * 16), kk from the phases.
// RUN: rm -rf %t.d && mkdir -p %t.d
// RUN: forge-port analyze %S/Inputs/staged.cu --kernel pmpp | FileCheck %s --check-prefix=MODEL
// MODEL: staged matrix product P[i][j] = sum over k of M[i][k] * N[k][j]
// MODEL: staged: Mds[ty][k] holds M[{{.*}}], filled at line 13
// MODEL: staged: Nds[k][tx] holds N[{{.*}}], filled at line 14
// MODEL: kk = ph * 16 + k < (Width / 16) * 16 (the phases' tiles; a partial last tile is not summed)
// MODEL: assumes blockDim = (16, 16, 1): one thread per tile element
// RUN: forge-port propose %S/Inputs/staged.cu --spec %S/Inputs/staged-pmpp.json --rules=register-tiling --format=json > %t.d/pmpp.json
// RUN: %python %S/../../Inputs/apply_proposal.py %t.d/pmpp.json 0 %S/Inputs/staged.cu > %t.d/pmpp0.cu
// RUN: %python %S/../../Inputs/apply_proposal.py %t.d/pmpp.json 2 %S/Inputs/staged.cu > %t.d/pmpp2.cu
// RUN: %python %S/../../Inputs/apply_proposal.py %t.d/pmpp.json 4 %S/Inputs/staged.cu > %t.d/pmpp4.cu
// RUN: FileCheck %s --check-prefix=PMPP < %t.d/pmpp0.cu
// RUN: FileCheck %s --check-prefix=PMPP-WIDE < %t.d/pmpp2.cu
// RUN: FileCheck %s --check-prefix=PMPP-ROWS < %t.d/pmpp4.cu
// PMPP: __global__ void __launch_bounds__(256, 2) pmpp(const float *M, const float *N, float *P, int Width) {
// PMPP-NOT: __shared__ float Mds
// PMPP: rt_ra[rt_e][rt_q] = rt_rr1 < ((Width / 16) * 16) && rt_cc1 < ((Width / 16) * 16) ? M[rt_rr1 * Width + ((rt_cc1) / 16) * TILE_WIDTH + ((rt_cc1) % 16)] : 0.0f;
// PMPP: for (int rt_k0 = 0; rt_k0 < ((Width / 16) * 16); rt_k0 += 8) {
// PMPP: if (rt_row < ((Width / 16) * 16) && rt_col < ((Width / 16) * 16))
// PMPP-NEXT: P[rt_row * Width + rt_col] = rt_acc[rt_i][rt_j];
// At 4096^2 (two waves of 128 x 256 tiles) the third is the wide tile.
// PMPP-WIDE: __global__ void __launch_bounds__(256, 1) pmpp(
// PMPP-WIDE: a 128 x 256 tile of C per block of 256 threads, 8 x 16 outputs per thread;
// PMPP-ROWS: rt_ok[rt_r] = rt_row < ((Width / 16) * 16) && Col < ((Width / 16) * 16);
// PMPP-ROWS: for (int k = 0; k < ((Width / 16) * 16); ++k) {
// PMPP-ROWS-NEXT: float rt_b = N[(((k) / 16) * TILE_WIDTH + ((k) % 16)) * Width + Col];
// PMPP-ROWS: rt_acc[rt_r] += M[rt_row * Width + ((k) / 16) * TILE_WIDTH + ((k) % 16)] * rt_b;
//
// With bounds checks (the fills zero past Width, the phases cover it): kk < Width.
// RUN: forge-port propose %S/Inputs/staged.cu --kernel pmpp_checked --block 16,16 --rules=register-tiling --format=json > %t.d/checked.json
// RUN: %python %S/../../Inputs/apply_proposal.py %t.d/checked.json 0 %S/Inputs/staged.cu > %t.d/checked0.cu
// RUN: FileCheck %s --check-prefix=CHECKED < %t.d/checked0.cu
// CHECKED: for (int rt_k0 = 0; rt_k0 < (Width); rt_k0 += 8) {
// CHECKED: if ((rt_row < Width) && (rt_col < Width))
//
// blockDim for the tile's size: the block the fills assume (16) in the spelling.
// RUN: forge-port propose %S/Inputs/staged.cu --kernel pmpp_blockdim --block 16,16 --rules=register-tiling --format=json > %t.d/bd.json
// RUN: %python %S/../../Inputs/apply_proposal.py %t.d/bd.json 0 %S/Inputs/staged.cu > %t.d/bd0.cu
// RUN: FileCheck %s --check-prefix=BLOCKDIM < %t.d/bd0.cu
// BLOCKDIM: ? M[rt_rr1 * Width + ((rt_cc1) / 16) * 16 + ((rt_cc1) % 16)] : 0.0f;
//
// Rectangular, threadIdx written directly.
// RUN: forge-port propose %S/Inputs/staged.cu --kernel rect --block 16,16 --rules=register-tiling --format=json > %t.d/rect.json
// RUN: %python %S/../../Inputs/apply_proposal.py %t.d/rect.json 0 %S/Inputs/staged.cu > %t.d/rect0.cu
// RUN: %python %S/../../Inputs/apply_proposal.py %t.d/rect.json 3 %S/Inputs/staged.cu > %t.d/rect3.cu
// RUN: FileCheck %s --check-prefix=RECT < %t.d/rect3.cu
// RECT: for (int p = 0; p < (k); ++p) {
// RECT-NEXT: float rt_b = B[(((p) / 16) * TILE_WIDTH + ((p) % 16)) * n + col];
// RECT: rt_acc[rt_r] += A[rt_row * k + ((p) / 16) * TILE_WIDTH + ((p) % 16)] * rt_b;
//
// RUN: cd %t.d && %nvcc -arch=sm_90 -c pmpp0.cu pmpp2.cu pmpp4.cu checked0.cu bd0.cu rect0.cu rect3.cu
//
// Refusals, with the model's reason.
// RUN: not forge-port propose %S/Inputs/staged.cu --kernel pmpp --block 16,16 --rules=register-tiling 2>&1 | FileCheck %s --check-prefix=NOSPEC
// NOSPEC: not applicable: the product checks no bounds, and the spec does not say which rows and columns its grid covers
// RUN: not forge-port propose %S/Inputs/staged.cu --kernel bad_index --block 16,16 --rules=register-tiling 2>&1 | FileCheck %s --check-prefix=INDEX
// INDEX: not applicable: the product is already tiled: Mds is read from shared memory (its tiles do not stand for global operands: the tile 'Mds' is read at 'Mds[k][ty]', an index the substitution cannot express
// RUN: not forge-port propose %S/Inputs/staged.cu --kernel not_one_to_one --block 16,16 --rules=register-tiling 2>&1 | FileCheck %s --check-prefix=ONE
// ONE: (its tiles do not stand for global operands: the fill of 'Mds' (line 108) is not one-to-one over the tile
// RUN: not forge-port propose %S/Inputs/staged.cu --kernel extra_write --block 16,16 --rules=register-tiling 2>&1 | FileCheck %s --check-prefix=EXTRA
// EXTRA: (its tiles do not stand for global operands: the tile 'Nds' is written more than once (line 130))
// RUN: not forge-port propose %S/Inputs/staged.cu --kernel not_product --block 16,16 --rules=register-tiling 2>&1 | FileCheck %s --check-prefix=OTHER
// OTHER: (its tiles do not stand for global operands: the tile 'Mds' is read besides the product (line 152))
