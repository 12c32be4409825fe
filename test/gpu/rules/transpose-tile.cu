// The transpose-tile rule's rewrites compute bitwise what the originals
// compute, on the GPU: the float transpose (rewritten for 32 x 8 blocks), a
// scaled double one with swapped roles and early exits (rewritten for
// 16 x 16 blocks) and one whose positions are written with a constant tile
// width of 16 (the tiled body for 16 x 16 blocks, the original body for
// others), each with 32 x 32 tiles (the first proposal) and 64 x 64 tiles
// (the second), and the float one with the fast path for 32 x 16 blocks.
// Every tiled kernel runs with the fast path's blocks (32 x 8, and 32 x 16
// for r16) on the original grid, one tile per block, one block and a small
// grid, and with blocks that take the generic loop (32 x 16, 32 x 32,
// 32 x 4, 32 x 8 x 2, 64 x 4, 128 x 1, 8 x 8); on sizes that are not
// multiples of 32 or 64, a multiple of 64 (interior tiles only), one smaller
// than a tile, and with pointers offset by 1 and 3 elements (the whole
// allocation is compared, so a stray write shows). `--bench` times 8192^2.
// REQUIRES: gpu, cuda
// RUN: rm -rf %t.d && mkdir -p %t.d
// RUN: forge-port propose %S/../Inputs/rules/transpose.cu --kernel transpose --block 32,8 --rules=transpose-tile --apply -o %t.d/a32.cu
// RUN: forge-port propose %t.d/a32.cu --kernel transpose_scaled --block 16,16 --rules=transpose-tile --apply -o %t.d/b32.cu
// RUN: forge-port propose %t.d/b32.cu --kernel transpose16 --block 16,16 --rules=transpose-tile --apply -o %t.d/t32.cu
// RUN: forge-port propose %S/../Inputs/rules/transpose.cu --kernel transpose --block 32,8 --rules=transpose-tile --format=json > %t.d/a64.json
// RUN: %python %S/../../Inputs/apply_proposal.py %t.d/a64.json 1 %S/../Inputs/rules/transpose.cu > %t.d/a64.cu
// RUN: forge-port propose %t.d/a64.cu --kernel transpose_scaled --block 16,16 --rules=transpose-tile --format=json > %t.d/b64.json
// RUN: %python %S/../../Inputs/apply_proposal.py %t.d/b64.json 1 %t.d/a64.cu > %t.d/b64.cu
// RUN: forge-port propose %t.d/b64.cu --kernel transpose16 --block 16,16 --rules=transpose-tile --format=json > %t.d/t64.json
// RUN: %python %S/../../Inputs/apply_proposal.py %t.d/t64.json 1 %t.d/b64.cu > %t.d/t64.cu
// RUN: forge-port propose %S/../Inputs/rules/transpose.cu --kernel transpose --block 32,16 --rules=transpose-tile --apply -o %t.d/r16.cu
// RUN: grep -q "forge_tile\[64\]\[64 + 1\]" %t.d/t64.cu
// RUN: grep -q "blockDim.y == 16 && blockDim.z == 1" %t.d/r16.cu
// RUN: %nvcc -arch=native -O3 -I%S/../Inputs/rules -I%t.d %s -o %t.d/check
// RUN: %t.d/check | FileCheck %s --implicit-check-not=MISMATCH --implicit-check-not=FAIL
// CHECK: transpose 32 1031x777 +0/+0 32x8 original grid: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose 32 1031x777 +0/+0 32x8 one tile per block: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose 32 1031x777 +0/+0 32x8 one block: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose 32 1031x777 +0/+0 32x8 small grid: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose 32 1031x777 +0/+0 32x16: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose 32 1031x777 +0/+0 32x32: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose 32 1031x777 +0/+0 32x4: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose 32 1031x777 +0/+0 32x8x2: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose 32 1031x777 +0/+0 64x4: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose 32 1031x777 +0/+0 128x1: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose 32 1031x777 +0/+0 8x8: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose 64 1031x777 +0/+0 32x8 original grid: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose 64 1031x777 +0/+0 32x8 one tile per block: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose 64 1031x777 +0/+0 32x8 one block: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose 64 1031x777 +0/+0 32x8 small grid: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose 64 1031x777 +0/+0 32x16: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose 64 1031x777 +0/+0 32x32: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose 64 1031x777 +0/+0 32x4: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose 64 1031x777 +0/+0 32x8x2: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose 64 1031x777 +0/+0 64x4: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose 64 1031x777 +0/+0 128x1: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose 64 1031x777 +0/+0 8x8: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose 32/r16 1031x777 +0/+0 32x8 original grid: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose 32/r16 1031x777 +0/+0 32x8 one tile per block: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose 32/r16 1031x777 +0/+0 32x8 one block: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose 32/r16 1031x777 +0/+0 32x8 small grid: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose 32/r16 1031x777 +0/+0 32x16: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose 32/r16 1031x777 +0/+0 32x32: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose 32/r16 1031x777 +0/+0 32x4: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose 32/r16 1031x777 +0/+0 32x8x2: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose 32/r16 1031x777 +0/+0 64x4: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose 32/r16 1031x777 +0/+0 128x1: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose 32/r16 1031x777 +0/+0 8x8: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose 32 256x192 +0/+0 32x8 original grid: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose 32 256x192 +0/+0 32x8 one tile per block: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose 32 256x192 +0/+0 32x8 one block: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose 32 256x192 +0/+0 32x8 small grid: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose 32 256x192 +0/+0 32x16: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose 32 256x192 +0/+0 32x32: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose 32 256x192 +0/+0 32x4: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose 32 256x192 +0/+0 32x8x2: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose 32 256x192 +0/+0 64x4: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose 32 256x192 +0/+0 128x1: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose 32 256x192 +0/+0 8x8: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose 64 256x192 +0/+0 32x8 original grid: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose 64 256x192 +0/+0 32x8 one tile per block: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose 64 256x192 +0/+0 32x8 one block: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose 64 256x192 +0/+0 32x8 small grid: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose 64 256x192 +0/+0 32x16: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose 64 256x192 +0/+0 32x32: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose 64 256x192 +0/+0 32x4: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose 64 256x192 +0/+0 32x8x2: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose 64 256x192 +0/+0 64x4: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose 64 256x192 +0/+0 128x1: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose 64 256x192 +0/+0 8x8: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose 32/r16 256x192 +0/+0 32x8 original grid: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose 32/r16 256x192 +0/+0 32x8 one tile per block: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose 32/r16 256x192 +0/+0 32x8 one block: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose 32/r16 256x192 +0/+0 32x8 small grid: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose 32/r16 256x192 +0/+0 32x16: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose 32/r16 256x192 +0/+0 32x32: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose 32/r16 256x192 +0/+0 32x4: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose 32/r16 256x192 +0/+0 32x8x2: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose 32/r16 256x192 +0/+0 64x4: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose 32/r16 256x192 +0/+0 128x1: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose 32/r16 256x192 +0/+0 8x8: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose 32 5x3 +0/+0 32x8 original grid: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose 32 5x3 +0/+0 32x8 one tile per block: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose 32 5x3 +0/+0 32x8 one block: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose 32 5x3 +0/+0 32x8 small grid: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose 32 5x3 +0/+0 32x16: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose 32 5x3 +0/+0 32x32: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose 32 5x3 +0/+0 32x4: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose 32 5x3 +0/+0 32x8x2: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose 32 5x3 +0/+0 64x4: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose 32 5x3 +0/+0 128x1: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose 32 5x3 +0/+0 8x8: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose 64 5x3 +0/+0 32x8 original grid: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose 64 5x3 +0/+0 32x8 one tile per block: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose 64 5x3 +0/+0 32x8 one block: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose 64 5x3 +0/+0 32x8 small grid: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose 64 5x3 +0/+0 32x16: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose 64 5x3 +0/+0 32x32: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose 64 5x3 +0/+0 32x4: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose 64 5x3 +0/+0 32x8x2: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose 64 5x3 +0/+0 64x4: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose 64 5x3 +0/+0 128x1: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose 64 5x3 +0/+0 8x8: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose 32/r16 5x3 +0/+0 32x8 original grid: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose 32/r16 5x3 +0/+0 32x8 one tile per block: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose 32/r16 5x3 +0/+0 32x8 one block: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose 32/r16 5x3 +0/+0 32x8 small grid: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose 32/r16 5x3 +0/+0 32x16: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose 32/r16 5x3 +0/+0 32x32: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose 32/r16 5x3 +0/+0 32x4: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose 32/r16 5x3 +0/+0 32x8x2: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose 32/r16 5x3 +0/+0 64x4: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose 32/r16 5x3 +0/+0 128x1: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose 32/r16 5x3 +0/+0 8x8: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose 32 1031x777 +1/+3 32x8 original grid: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose 32 1031x777 +1/+3 32x8 one tile per block: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose 32 1031x777 +1/+3 32x8 one block: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose 32 1031x777 +1/+3 32x8 small grid: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose 32 1031x777 +1/+3 32x16: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose 32 1031x777 +1/+3 32x32: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose 32 1031x777 +1/+3 32x4: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose 32 1031x777 +1/+3 32x8x2: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose 32 1031x777 +1/+3 64x4: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose 32 1031x777 +1/+3 128x1: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose 32 1031x777 +1/+3 8x8: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose 64 1031x777 +1/+3 32x8 original grid: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose 64 1031x777 +1/+3 32x8 one tile per block: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose 64 1031x777 +1/+3 32x8 one block: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose 64 1031x777 +1/+3 32x8 small grid: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose 64 1031x777 +1/+3 32x16: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose 64 1031x777 +1/+3 32x32: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose 64 1031x777 +1/+3 32x4: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose 64 1031x777 +1/+3 32x8x2: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose 64 1031x777 +1/+3 64x4: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose 64 1031x777 +1/+3 128x1: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose 64 1031x777 +1/+3 8x8: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose 32/r16 1031x777 +1/+3 32x8 original grid: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose 32/r16 1031x777 +1/+3 32x8 one tile per block: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose 32/r16 1031x777 +1/+3 32x8 one block: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose 32/r16 1031x777 +1/+3 32x8 small grid: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose 32/r16 1031x777 +1/+3 32x16: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose 32/r16 1031x777 +1/+3 32x32: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose 32/r16 1031x777 +1/+3 32x4: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose 32/r16 1031x777 +1/+3 32x8x2: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose 32/r16 1031x777 +1/+3 64x4: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose 32/r16 1031x777 +1/+3 128x1: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose 32/r16 1031x777 +1/+3 8x8: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_scaled 32 1031x777 +0 32x8 original grid: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_scaled 32 1031x777 +0 32x8 one tile per block: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_scaled 32 1031x777 +0 32x8 one block: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_scaled 32 1031x777 +0 32x8 small grid: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_scaled 32 1031x777 +0 32x16: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_scaled 32 1031x777 +0 32x32: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_scaled 32 1031x777 +0 32x4: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_scaled 32 1031x777 +0 32x8x2: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_scaled 32 1031x777 +0 64x4: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_scaled 32 1031x777 +0 128x1: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_scaled 32 1031x777 +0 8x8: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_scaled 64 1031x777 +0 32x8 original grid: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_scaled 64 1031x777 +0 32x8 one tile per block: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_scaled 64 1031x777 +0 32x8 one block: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_scaled 64 1031x777 +0 32x8 small grid: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_scaled 64 1031x777 +0 32x16: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_scaled 64 1031x777 +0 32x32: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_scaled 64 1031x777 +0 32x4: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_scaled 64 1031x777 +0 32x8x2: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_scaled 64 1031x777 +0 64x4: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_scaled 64 1031x777 +0 128x1: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_scaled 64 1031x777 +0 8x8: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_scaled 32 1031x777 +1 32x8 original grid: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_scaled 32 1031x777 +1 32x8 one tile per block: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_scaled 32 1031x777 +1 32x8 one block: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_scaled 32 1031x777 +1 32x8 small grid: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_scaled 32 1031x777 +1 32x16: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_scaled 32 1031x777 +1 32x32: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_scaled 32 1031x777 +1 32x4: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_scaled 32 1031x777 +1 32x8x2: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_scaled 32 1031x777 +1 64x4: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_scaled 32 1031x777 +1 128x1: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_scaled 32 1031x777 +1 8x8: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_scaled 64 1031x777 +1 32x8 original grid: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_scaled 64 1031x777 +1 32x8 one tile per block: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_scaled 64 1031x777 +1 32x8 one block: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_scaled 64 1031x777 +1 32x8 small grid: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_scaled 64 1031x777 +1 32x16: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_scaled 64 1031x777 +1 32x32: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_scaled 64 1031x777 +1 32x4: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_scaled 64 1031x777 +1 32x8x2: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_scaled 64 1031x777 +1 64x4: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_scaled 64 1031x777 +1 128x1: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_scaled 64 1031x777 +1 8x8: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose16 32 16x16 (tiled): ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose16 32 32x8 (original body): ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose16 64 16x16 (tiled): ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose16 64 32x8 (original body): ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: PASS
#include "transpose_buffers.h"

namespace orig {
#include "transpose.cu"
} // namespace orig
namespace c32 {
#include "t32.cu"
} // namespace c32
namespace c64 {
#include "t64.cu"
} // namespace c64
namespace r16 {
#include "r16.cu"
} // namespace r16

namespace {

struct Shape {
  const char *Name;
  dim3 Grid, Block;
};

// The launch shapes a tiled kernel of tile side T must be correct for, on a
// rows x cols problem: the fast path's blocks (32 x 8, 32 x 16) with the
// original grid, one tile per block, one block and a small grid; other
// blocks, which take the generic loop.
std::vector<Shape> shapes(unsigned rows, unsigned cols, unsigned T) {
  using check::ceilDiv;
  dim3 tiles(ceilDiv(cols, T), ceilDiv(rows, T));
  return {{"32x8 original grid", dim3(ceilDiv(cols, 32), ceilDiv(rows, 8)), dim3(32, 8)},
          {"32x8 one tile per block", tiles, dim3(32, 8)},
          {"32x8 one block", dim3(1, 1), dim3(32, 8)},
          {"32x8 small grid", dim3(3, 2), dim3(32, 8)},
          {"32x16", tiles, dim3(32, 16)},
          {"32x32", tiles, dim3(32, 32)},
          {"32x4", tiles, dim3(32, 4)},
          {"32x8x2", tiles, dim3(32, 8, 2)},
          {"64x4", dim3(ceilDiv(cols, 64), ceilDiv(rows, 4)), dim3(64, 4)},
          {"128x1", tiles, dim3(128, 1)},
          {"8x8", dim3(ceilDiv(cols, 8), ceilDiv(rows, 8)), dim3(8, 8)}};
}

bool ok = true;

// The float transpose of rows x cols (in: rows x cols, out: cols x rows).
template <typename K>
void checkTranspose(const char *variant, K cand, unsigned T, unsigned rows, unsigned cols,
                    unsigned offIn, unsigned offOut) {
  Buffers<float> B(size_t(rows) * cols, rows + cols);
  const float *in = B.In + offIn;
  float *out = B.Out + offOut;
  auto run = [&](auto kernel, dim3 grid, dim3 block) {
    check::poison(B.Out, B.N);
    kernel<<<grid, block>>>(in, out, int(rows), int(cols));
    CK(cudaGetLastError());
    return check::download(B.Out, B.N);
  };
  auto ref = run(orig::transpose, dim3(check::ceilDiv(cols, 32), check::ceilDiv(rows, 8)),
                 dim3(32, 8));
  for (const Shape &S : shapes(rows, cols, T)) {
    char what[160];
    std::snprintf(what, sizeof what, "transpose %s %ux%u +%u/+%u %s", variant, rows, cols, offIn,
                  offOut, S.Name);
    ok &= check::compare(what, ref, run(cand, S.Grid, S.Block), 0, 0);
  }
}

// The scaled double transpose with swapped roles (a: n x m read along j).
template <typename K>
void checkScaled(const char *variant, K cand, unsigned T, unsigned n, unsigned m, unsigned off) {
  Buffers<double> B(size_t(n) * m, 7);
  const double *a = B.In + off;
  double *b = B.Out + off;
  auto run = [&](auto kernel, dim3 grid, dim3 block) {
    check::poison(B.Out, B.N);
    kernel<<<grid, block>>>(a, b, 0.75, int(n), int(m));
    CK(cudaGetLastError());
    return check::download(B.Out, B.N);
  };
  auto ref = run(orig::transpose_scaled, dim3(check::ceilDiv(n, 16), check::ceilDiv(m, 16)),
                 dim3(16, 16));
  for (const Shape &S : shapes(m, n, T)) {
    char what[160];
    std::snprintf(what, sizeof what, "transpose_scaled %s %ux%u +%u %s", variant, n, m, off,
                  S.Name);
    ok &= check::compare(what, ref, run(cand, S.Grid, S.Block), 0, 0);
  }
}

// Positions written with the constant 16: tiled for 16 x 16 blocks, the
// original body for others.
template <typename K> void checkFixed(const char *variant, K cand, unsigned rows, unsigned cols) {
  Buffers<float> B(size_t(rows) * cols, 3);
  auto run = [&](auto kernel, dim3 grid, dim3 block) {
    check::poison(B.Out, B.N);
    kernel<<<grid, block>>>(B.In, B.Out, int(rows), int(cols));
    CK(cudaGetLastError());
    return check::download(B.Out, B.N);
  };
  dim3 grid(check::ceilDiv(cols, 16), check::ceilDiv(rows, 16));
  char what[160];
  std::snprintf(what, sizeof what, "transpose16 %s 16x16 (tiled)", variant);
  ok &= check::compare(what, run(orig::transpose16, grid, dim3(16, 16)),
                       run(cand, grid, dim3(16, 16)), 0, 0);
  // 32 x 8 blocks with the same grid: the original covers other elements
  // (and leaves some unwritten); the rewrite must do the same.
  std::snprintf(what, sizeof what, "transpose16 %s 32x8 (original body)", variant);
  ok &= check::compare(what, run(orig::transpose16, grid, dim3(32, 8)),
                       run(cand, grid, dim3(32, 8)), 0, 0);
}

void bench() {
  unsigned n = 8192;
  Buffers<float> B(size_t(n) * n, 1);
  dim3 block(32, 8), grid(n / 32, n / 8);
  double t0 = check::time([&] { orig::transpose<<<grid, block>>>(B.In, B.Out, n, n); });
  check::report("transpose 8192^2 f32, 32 x 32 tiles",
                t0, check::time([&] { c32::transpose<<<dim3(n / 32, n / 32), block>>>(B.In, B.Out, n, n); }));
  check::report("transpose 8192^2 f32, 64 x 64 tiles",
                t0, check::time([&] { c64::transpose<<<dim3(n / 64, n / 64), block>>>(B.In, B.Out, n, n); }));
  check::report("transpose 8192^2 f32, 32 x 32 tiles, 32 x 16 blocks", t0,
                check::time([&] { r16::transpose<<<dim3(n / 32, n / 32), dim3(32, 16)>>>(B.In, B.Out, n, n); }));
  Buffers<double> D(size_t(n) * n, 2);
  double d0 = check::time([&] {
    orig::transpose_scaled<<<dim3(n / 16, n / 16), dim3(16, 16)>>>(D.In, D.Out, 0.75, n, n);
  });
  check::report("transpose_scaled 8192^2 f64, 32 x 32 tiles, 32 x 8 blocks", d0, check::time([&] {
    c32::transpose_scaled<<<dim3(n / 32, n / 32), block>>>(D.In, D.Out, 0.75, n, n);
  }));
  check::report("transpose_scaled 8192^2 f64, 64 x 64 tiles, 32 x 8 blocks", d0, check::time([&] {
    c64::transpose_scaled<<<dim3(n / 64, n / 64), block>>>(D.In, D.Out, 0.75, n, n);
  }));
}

} // namespace

int main(int argc, char **argv) {
  // Sizes that are not multiples of 32 or 64 (or of the blocks), a
  // multiple of 64 (every tile full), and one smaller than a tile.
  const unsigned Sizes[][2] = {{1031, 777}, {256, 192}, {5, 3}};
  for (auto [rows, cols] : Sizes) {
    checkTranspose("32", c32::transpose, 32, rows, cols, 0, 0);
    checkTranspose("64", c64::transpose, 64, rows, cols, 0, 0);
    checkTranspose("32/r16", r16::transpose, 32, rows, cols, 0, 0);
  }
  checkTranspose("32", c32::transpose, 32, 1031, 777, 1, 3);
  checkTranspose("64", c64::transpose, 64, 1031, 777, 1, 3);
  checkTranspose("32/r16", r16::transpose, 32, 1031, 777, 1, 3);
  checkScaled("32", c32::transpose_scaled, 32, 1031, 777, 0);
  checkScaled("64", c64::transpose_scaled, 64, 1031, 777, 0);
  checkScaled("32", c32::transpose_scaled, 32, 1031, 777, 1);
  checkScaled("64", c64::transpose_scaled, 64, 1031, 777, 1);
  checkFixed("32", c32::transpose16, 1031, 777);
  checkFixed("64", c64::transpose16, 1031, 777);
  if (check::bench(argc, argv))
    bench();
  std::printf("%s\n", ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
