// The transpose-tile rule's rewrites of transposes whose index runs
// backwards along its fast position (test/gpu/Inputs/rules/
// transpose_reversed.cu) compute bitwise what the originals compute, on the
// GPU: rotate90 (the store backwards, rewritten for 32 x 8 blocks),
// rotate270 on doubles written as a gather over the output (the load
// backwards and strided, 16 x 16 blocks), flip_x, a transpose of the image
// mirrored left to right with a scaled value (the load backwards and
// coalesced, the fast path for 32 x 16 blocks), anti_transpose (the store
// backwards along both positions, early exits) and rotate90_fixed (positions
// written with the constants 32 and 8: the tiled body for 32 x 8 blocks, the
// original body for 16 x 16 and 32 x 4), each with 32 x 32 tiles (the first
// proposal) and 64 x 64 tiles (the second). Every tiled kernel runs with
// 32 x 8 blocks on the original grid, one tile per block, one block and a
// small grid, and with 32 x 16, 32 x 32, 32 x 4, 32 x 8 x 2, 64 x 4, 128 x 1
// and 8 x 8 blocks; on a 1031 x 777 image (not a multiple of 32, 64 or the
// blocks), 256 x 192 (every tile full), 5 x 3 (less than a tile), and with
// pointers offset by 1 and 3 elements (the whole allocation is compared, so
// a stray write shows). `--bench` times 8192^2.
// REQUIRES: gpu, cuda
// RUN: rm -rf %t.d && mkdir -p %t.d
// RUN: forge-port propose %S/../Inputs/rules/transpose_reversed.cu --kernel rotate90 --block 32,8 --rules=transpose-tile --apply -o %t.d/a32.cu
// RUN: forge-port propose %t.d/a32.cu --kernel rotate270 --block 16,16 --rules=transpose-tile --apply -o %t.d/b32.cu
// RUN: forge-port propose %t.d/b32.cu --kernel flip_x --block 32,16 --rules=transpose-tile --apply -o %t.d/c32.cu
// RUN: forge-port propose %t.d/c32.cu --kernel anti_transpose --block 32,8 --rules=transpose-tile --apply -o %t.d/d32.cu
// RUN: forge-port propose %t.d/d32.cu --kernel rotate90_fixed --block 32,8 --rules=transpose-tile --apply -o %t.d/t32.cu
// RUN: forge-port propose %S/../Inputs/rules/transpose_reversed.cu --kernel rotate90 --block 32,8 --rules=transpose-tile --format=json > %t.d/a64.json
// RUN: %python %S/../../Inputs/apply_proposal.py %t.d/a64.json 1 %S/../Inputs/rules/transpose_reversed.cu > %t.d/a64.cu
// RUN: forge-port propose %t.d/a64.cu --kernel rotate270 --block 16,16 --rules=transpose-tile --format=json > %t.d/b64.json
// RUN: %python %S/../../Inputs/apply_proposal.py %t.d/b64.json 1 %t.d/a64.cu > %t.d/b64.cu
// RUN: forge-port propose %t.d/b64.cu --kernel flip_x --block 32,16 --rules=transpose-tile --format=json > %t.d/c64.json
// RUN: %python %S/../../Inputs/apply_proposal.py %t.d/c64.json 1 %t.d/b64.cu > %t.d/c64.cu
// RUN: forge-port propose %t.d/c64.cu --kernel anti_transpose --block 32,8 --rules=transpose-tile --format=json > %t.d/d64.json
// RUN: %python %S/../../Inputs/apply_proposal.py %t.d/d64.json 1 %t.d/c64.cu > %t.d/d64.cu
// RUN: forge-port propose %t.d/d64.cu --kernel rotate90_fixed --block 32,8 --rules=transpose-tile --format=json > %t.d/t64.json
// RUN: %python %S/../../Inputs/apply_proposal.py %t.d/t64.json 1 %t.d/d64.cu > %t.d/t64.cu
// RUN: test $(grep -c "forge_tile\[32\]\[32 + 1\]" %t.d/t32.cu) -eq 5
// RUN: test $(grep -c "forge_tile\[64\]\[64 + 1\]" %t.d/t64.cu) -eq 5
// RUN: test $(grep -c "runs backwards along" %t.d/t64.cu) -eq 5
// RUN: grep -q "blockDim.y == 16 && blockDim.z == 1" %t.d/t32.cu
// RUN: grep -q "forge_step - 32 \* forge_c\] = forge_tile" %t.d/t64.cu
// RUN: grep -q "if (blockDim.x != 32 || blockDim.y != 8) {" %t.d/t32.cu
// RUN: %nvcc -arch=native -O3 -I%S/../Inputs/rules -I%t.d %s -o %t.d/check
// RUN: %t.d/check | FileCheck %s --implicit-check-not=MISMATCH --implicit-check-not=FAIL
// CHECK: rotate90 32 1031x777 +0/+0 32x8 original grid: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: rotate90 32 1031x777 +0/+0 32x8 one tile per block: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: rotate90 32 1031x777 +0/+0 32x8 one block: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: rotate90 32 1031x777 +0/+0 32x8 small grid: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: rotate90 32 1031x777 +0/+0 32x16: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: rotate90 32 1031x777 +0/+0 32x32: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: rotate90 32 1031x777 +0/+0 32x4: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: rotate90 32 1031x777 +0/+0 32x8x2: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: rotate90 32 1031x777 +0/+0 64x4: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: rotate90 32 1031x777 +0/+0 128x1: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: rotate90 32 1031x777 +0/+0 8x8: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: rotate270 32 1031x777 +0/+0 32x8 original grid: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: rotate270 32 1031x777 +0/+0 32x8 one tile per block: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: rotate270 32 1031x777 +0/+0 32x8 one block: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: rotate270 32 1031x777 +0/+0 32x8 small grid: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: rotate270 32 1031x777 +0/+0 32x16: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: rotate270 32 1031x777 +0/+0 32x32: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: rotate270 32 1031x777 +0/+0 32x4: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: rotate270 32 1031x777 +0/+0 32x8x2: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: rotate270 32 1031x777 +0/+0 64x4: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: rotate270 32 1031x777 +0/+0 128x1: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: rotate270 32 1031x777 +0/+0 8x8: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: flip_x 32 1031x777 +0/+0 32x8 original grid: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: flip_x 32 1031x777 +0/+0 32x8 one tile per block: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: flip_x 32 1031x777 +0/+0 32x8 one block: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: flip_x 32 1031x777 +0/+0 32x8 small grid: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: flip_x 32 1031x777 +0/+0 32x16: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: flip_x 32 1031x777 +0/+0 32x32: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: flip_x 32 1031x777 +0/+0 32x4: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: flip_x 32 1031x777 +0/+0 32x8x2: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: flip_x 32 1031x777 +0/+0 64x4: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: flip_x 32 1031x777 +0/+0 128x1: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: flip_x 32 1031x777 +0/+0 8x8: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: anti_transpose 32 1031x777 +0/+0 32x8 original grid: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: anti_transpose 32 1031x777 +0/+0 32x8 one tile per block: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: anti_transpose 32 1031x777 +0/+0 32x8 one block: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: anti_transpose 32 1031x777 +0/+0 32x8 small grid: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: anti_transpose 32 1031x777 +0/+0 32x16: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: anti_transpose 32 1031x777 +0/+0 32x32: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: anti_transpose 32 1031x777 +0/+0 32x4: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: anti_transpose 32 1031x777 +0/+0 32x8x2: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: anti_transpose 32 1031x777 +0/+0 64x4: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: anti_transpose 32 1031x777 +0/+0 128x1: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: anti_transpose 32 1031x777 +0/+0 8x8: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: rotate90 64 1031x777 +0/+0 32x8 original grid: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: rotate90 64 1031x777 +0/+0 32x8 one tile per block: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: rotate90 64 1031x777 +0/+0 32x8 one block: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: rotate90 64 1031x777 +0/+0 32x8 small grid: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: rotate90 64 1031x777 +0/+0 32x16: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: rotate90 64 1031x777 +0/+0 32x32: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: rotate90 64 1031x777 +0/+0 32x4: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: rotate90 64 1031x777 +0/+0 32x8x2: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: rotate90 64 1031x777 +0/+0 64x4: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: rotate90 64 1031x777 +0/+0 128x1: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: rotate90 64 1031x777 +0/+0 8x8: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: rotate270 64 1031x777 +0/+0 32x8 original grid: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: rotate270 64 1031x777 +0/+0 32x8 one tile per block: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: rotate270 64 1031x777 +0/+0 32x8 one block: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: rotate270 64 1031x777 +0/+0 32x8 small grid: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: rotate270 64 1031x777 +0/+0 32x16: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: rotate270 64 1031x777 +0/+0 32x32: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: rotate270 64 1031x777 +0/+0 32x4: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: rotate270 64 1031x777 +0/+0 32x8x2: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: rotate270 64 1031x777 +0/+0 64x4: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: rotate270 64 1031x777 +0/+0 128x1: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: rotate270 64 1031x777 +0/+0 8x8: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: flip_x 64 1031x777 +0/+0 32x8 original grid: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: flip_x 64 1031x777 +0/+0 32x8 one tile per block: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: flip_x 64 1031x777 +0/+0 32x8 one block: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: flip_x 64 1031x777 +0/+0 32x8 small grid: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: flip_x 64 1031x777 +0/+0 32x16: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: flip_x 64 1031x777 +0/+0 32x32: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: flip_x 64 1031x777 +0/+0 32x4: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: flip_x 64 1031x777 +0/+0 32x8x2: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: flip_x 64 1031x777 +0/+0 64x4: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: flip_x 64 1031x777 +0/+0 128x1: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: flip_x 64 1031x777 +0/+0 8x8: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: anti_transpose 64 1031x777 +0/+0 32x8 original grid: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: anti_transpose 64 1031x777 +0/+0 32x8 one tile per block: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: anti_transpose 64 1031x777 +0/+0 32x8 one block: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: anti_transpose 64 1031x777 +0/+0 32x8 small grid: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: anti_transpose 64 1031x777 +0/+0 32x16: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: anti_transpose 64 1031x777 +0/+0 32x32: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: anti_transpose 64 1031x777 +0/+0 32x4: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: anti_transpose 64 1031x777 +0/+0 32x8x2: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: anti_transpose 64 1031x777 +0/+0 64x4: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: anti_transpose 64 1031x777 +0/+0 128x1: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: anti_transpose 64 1031x777 +0/+0 8x8: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: rotate90 32 256x192 +0/+0 32x8 original grid: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: rotate90 32 256x192 +0/+0 32x8 one tile per block: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: rotate90 32 256x192 +0/+0 32x8 one block: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: rotate90 32 256x192 +0/+0 32x8 small grid: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: rotate90 32 256x192 +0/+0 32x16: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: rotate90 32 256x192 +0/+0 32x32: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: rotate90 32 256x192 +0/+0 32x4: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: rotate90 32 256x192 +0/+0 32x8x2: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: rotate90 32 256x192 +0/+0 64x4: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: rotate90 32 256x192 +0/+0 128x1: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: rotate90 32 256x192 +0/+0 8x8: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: rotate270 32 256x192 +0/+0 32x8 original grid: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: rotate270 32 256x192 +0/+0 32x8 one tile per block: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: rotate270 32 256x192 +0/+0 32x8 one block: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: rotate270 32 256x192 +0/+0 32x8 small grid: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: rotate270 32 256x192 +0/+0 32x16: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: rotate270 32 256x192 +0/+0 32x32: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: rotate270 32 256x192 +0/+0 32x4: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: rotate270 32 256x192 +0/+0 32x8x2: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: rotate270 32 256x192 +0/+0 64x4: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: rotate270 32 256x192 +0/+0 128x1: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: rotate270 32 256x192 +0/+0 8x8: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: flip_x 32 256x192 +0/+0 32x8 original grid: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: flip_x 32 256x192 +0/+0 32x8 one tile per block: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: flip_x 32 256x192 +0/+0 32x8 one block: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: flip_x 32 256x192 +0/+0 32x8 small grid: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: flip_x 32 256x192 +0/+0 32x16: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: flip_x 32 256x192 +0/+0 32x32: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: flip_x 32 256x192 +0/+0 32x4: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: flip_x 32 256x192 +0/+0 32x8x2: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: flip_x 32 256x192 +0/+0 64x4: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: flip_x 32 256x192 +0/+0 128x1: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: flip_x 32 256x192 +0/+0 8x8: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: anti_transpose 32 256x192 +0/+0 32x8 original grid: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: anti_transpose 32 256x192 +0/+0 32x8 one tile per block: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: anti_transpose 32 256x192 +0/+0 32x8 one block: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: anti_transpose 32 256x192 +0/+0 32x8 small grid: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: anti_transpose 32 256x192 +0/+0 32x16: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: anti_transpose 32 256x192 +0/+0 32x32: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: anti_transpose 32 256x192 +0/+0 32x4: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: anti_transpose 32 256x192 +0/+0 32x8x2: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: anti_transpose 32 256x192 +0/+0 64x4: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: anti_transpose 32 256x192 +0/+0 128x1: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: anti_transpose 32 256x192 +0/+0 8x8: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: rotate90 64 256x192 +0/+0 32x8 original grid: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: rotate90 64 256x192 +0/+0 32x8 one tile per block: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: rotate90 64 256x192 +0/+0 32x8 one block: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: rotate90 64 256x192 +0/+0 32x8 small grid: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: rotate90 64 256x192 +0/+0 32x16: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: rotate90 64 256x192 +0/+0 32x32: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: rotate90 64 256x192 +0/+0 32x4: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: rotate90 64 256x192 +0/+0 32x8x2: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: rotate90 64 256x192 +0/+0 64x4: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: rotate90 64 256x192 +0/+0 128x1: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: rotate90 64 256x192 +0/+0 8x8: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: rotate270 64 256x192 +0/+0 32x8 original grid: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: rotate270 64 256x192 +0/+0 32x8 one tile per block: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: rotate270 64 256x192 +0/+0 32x8 one block: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: rotate270 64 256x192 +0/+0 32x8 small grid: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: rotate270 64 256x192 +0/+0 32x16: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: rotate270 64 256x192 +0/+0 32x32: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: rotate270 64 256x192 +0/+0 32x4: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: rotate270 64 256x192 +0/+0 32x8x2: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: rotate270 64 256x192 +0/+0 64x4: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: rotate270 64 256x192 +0/+0 128x1: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: rotate270 64 256x192 +0/+0 8x8: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: flip_x 64 256x192 +0/+0 32x8 original grid: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: flip_x 64 256x192 +0/+0 32x8 one tile per block: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: flip_x 64 256x192 +0/+0 32x8 one block: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: flip_x 64 256x192 +0/+0 32x8 small grid: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: flip_x 64 256x192 +0/+0 32x16: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: flip_x 64 256x192 +0/+0 32x32: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: flip_x 64 256x192 +0/+0 32x4: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: flip_x 64 256x192 +0/+0 32x8x2: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: flip_x 64 256x192 +0/+0 64x4: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: flip_x 64 256x192 +0/+0 128x1: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: flip_x 64 256x192 +0/+0 8x8: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: anti_transpose 64 256x192 +0/+0 32x8 original grid: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: anti_transpose 64 256x192 +0/+0 32x8 one tile per block: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: anti_transpose 64 256x192 +0/+0 32x8 one block: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: anti_transpose 64 256x192 +0/+0 32x8 small grid: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: anti_transpose 64 256x192 +0/+0 32x16: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: anti_transpose 64 256x192 +0/+0 32x32: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: anti_transpose 64 256x192 +0/+0 32x4: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: anti_transpose 64 256x192 +0/+0 32x8x2: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: anti_transpose 64 256x192 +0/+0 64x4: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: anti_transpose 64 256x192 +0/+0 128x1: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: anti_transpose 64 256x192 +0/+0 8x8: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: rotate90 32 5x3 +0/+0 32x8 original grid: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: rotate90 32 5x3 +0/+0 32x8 one tile per block: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: rotate90 32 5x3 +0/+0 32x8 one block: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: rotate90 32 5x3 +0/+0 32x8 small grid: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: rotate90 32 5x3 +0/+0 32x16: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: rotate90 32 5x3 +0/+0 32x32: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: rotate90 32 5x3 +0/+0 32x4: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: rotate90 32 5x3 +0/+0 32x8x2: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: rotate90 32 5x3 +0/+0 64x4: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: rotate90 32 5x3 +0/+0 128x1: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: rotate90 32 5x3 +0/+0 8x8: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: rotate270 32 5x3 +0/+0 32x8 original grid: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: rotate270 32 5x3 +0/+0 32x8 one tile per block: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: rotate270 32 5x3 +0/+0 32x8 one block: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: rotate270 32 5x3 +0/+0 32x8 small grid: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: rotate270 32 5x3 +0/+0 32x16: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: rotate270 32 5x3 +0/+0 32x32: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: rotate270 32 5x3 +0/+0 32x4: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: rotate270 32 5x3 +0/+0 32x8x2: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: rotate270 32 5x3 +0/+0 64x4: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: rotate270 32 5x3 +0/+0 128x1: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: rotate270 32 5x3 +0/+0 8x8: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: flip_x 32 5x3 +0/+0 32x8 original grid: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: flip_x 32 5x3 +0/+0 32x8 one tile per block: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: flip_x 32 5x3 +0/+0 32x8 one block: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: flip_x 32 5x3 +0/+0 32x8 small grid: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: flip_x 32 5x3 +0/+0 32x16: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: flip_x 32 5x3 +0/+0 32x32: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: flip_x 32 5x3 +0/+0 32x4: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: flip_x 32 5x3 +0/+0 32x8x2: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: flip_x 32 5x3 +0/+0 64x4: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: flip_x 32 5x3 +0/+0 128x1: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: flip_x 32 5x3 +0/+0 8x8: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: anti_transpose 32 5x3 +0/+0 32x8 original grid: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: anti_transpose 32 5x3 +0/+0 32x8 one tile per block: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: anti_transpose 32 5x3 +0/+0 32x8 one block: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: anti_transpose 32 5x3 +0/+0 32x8 small grid: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: anti_transpose 32 5x3 +0/+0 32x16: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: anti_transpose 32 5x3 +0/+0 32x32: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: anti_transpose 32 5x3 +0/+0 32x4: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: anti_transpose 32 5x3 +0/+0 32x8x2: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: anti_transpose 32 5x3 +0/+0 64x4: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: anti_transpose 32 5x3 +0/+0 128x1: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: anti_transpose 32 5x3 +0/+0 8x8: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: rotate90 64 5x3 +0/+0 32x8 original grid: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: rotate90 64 5x3 +0/+0 32x8 one tile per block: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: rotate90 64 5x3 +0/+0 32x8 one block: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: rotate90 64 5x3 +0/+0 32x8 small grid: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: rotate90 64 5x3 +0/+0 32x16: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: rotate90 64 5x3 +0/+0 32x32: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: rotate90 64 5x3 +0/+0 32x4: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: rotate90 64 5x3 +0/+0 32x8x2: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: rotate90 64 5x3 +0/+0 64x4: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: rotate90 64 5x3 +0/+0 128x1: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: rotate90 64 5x3 +0/+0 8x8: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: rotate270 64 5x3 +0/+0 32x8 original grid: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: rotate270 64 5x3 +0/+0 32x8 one tile per block: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: rotate270 64 5x3 +0/+0 32x8 one block: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: rotate270 64 5x3 +0/+0 32x8 small grid: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: rotate270 64 5x3 +0/+0 32x16: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: rotate270 64 5x3 +0/+0 32x32: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: rotate270 64 5x3 +0/+0 32x4: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: rotate270 64 5x3 +0/+0 32x8x2: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: rotate270 64 5x3 +0/+0 64x4: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: rotate270 64 5x3 +0/+0 128x1: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: rotate270 64 5x3 +0/+0 8x8: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: flip_x 64 5x3 +0/+0 32x8 original grid: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: flip_x 64 5x3 +0/+0 32x8 one tile per block: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: flip_x 64 5x3 +0/+0 32x8 one block: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: flip_x 64 5x3 +0/+0 32x8 small grid: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: flip_x 64 5x3 +0/+0 32x16: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: flip_x 64 5x3 +0/+0 32x32: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: flip_x 64 5x3 +0/+0 32x4: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: flip_x 64 5x3 +0/+0 32x8x2: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: flip_x 64 5x3 +0/+0 64x4: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: flip_x 64 5x3 +0/+0 128x1: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: flip_x 64 5x3 +0/+0 8x8: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: anti_transpose 64 5x3 +0/+0 32x8 original grid: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: anti_transpose 64 5x3 +0/+0 32x8 one tile per block: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: anti_transpose 64 5x3 +0/+0 32x8 one block: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: anti_transpose 64 5x3 +0/+0 32x8 small grid: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: anti_transpose 64 5x3 +0/+0 32x16: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: anti_transpose 64 5x3 +0/+0 32x32: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: anti_transpose 64 5x3 +0/+0 32x4: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: anti_transpose 64 5x3 +0/+0 32x8x2: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: anti_transpose 64 5x3 +0/+0 64x4: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: anti_transpose 64 5x3 +0/+0 128x1: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: anti_transpose 64 5x3 +0/+0 8x8: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: rotate90 32 1031x777 +1/+3 32x8 original grid: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: rotate90 32 1031x777 +1/+3 32x8 one tile per block: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: rotate90 32 1031x777 +1/+3 32x8 one block: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: rotate90 32 1031x777 +1/+3 32x8 small grid: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: rotate90 32 1031x777 +1/+3 32x16: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: rotate90 32 1031x777 +1/+3 32x32: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: rotate90 32 1031x777 +1/+3 32x4: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: rotate90 32 1031x777 +1/+3 32x8x2: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: rotate90 32 1031x777 +1/+3 64x4: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: rotate90 32 1031x777 +1/+3 128x1: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: rotate90 32 1031x777 +1/+3 8x8: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: rotate270 32 1031x777 +1/+3 32x8 original grid: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: rotate270 32 1031x777 +1/+3 32x8 one tile per block: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: rotate270 32 1031x777 +1/+3 32x8 one block: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: rotate270 32 1031x777 +1/+3 32x8 small grid: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: rotate270 32 1031x777 +1/+3 32x16: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: rotate270 32 1031x777 +1/+3 32x32: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: rotate270 32 1031x777 +1/+3 32x4: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: rotate270 32 1031x777 +1/+3 32x8x2: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: rotate270 32 1031x777 +1/+3 64x4: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: rotate270 32 1031x777 +1/+3 128x1: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: rotate270 32 1031x777 +1/+3 8x8: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: flip_x 32 1031x777 +1/+3 32x8 original grid: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: flip_x 32 1031x777 +1/+3 32x8 one tile per block: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: flip_x 32 1031x777 +1/+3 32x8 one block: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: flip_x 32 1031x777 +1/+3 32x8 small grid: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: flip_x 32 1031x777 +1/+3 32x16: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: flip_x 32 1031x777 +1/+3 32x32: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: flip_x 32 1031x777 +1/+3 32x4: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: flip_x 32 1031x777 +1/+3 32x8x2: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: flip_x 32 1031x777 +1/+3 64x4: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: flip_x 32 1031x777 +1/+3 128x1: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: flip_x 32 1031x777 +1/+3 8x8: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: anti_transpose 32 1031x777 +1/+3 32x8 original grid: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: anti_transpose 32 1031x777 +1/+3 32x8 one tile per block: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: anti_transpose 32 1031x777 +1/+3 32x8 one block: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: anti_transpose 32 1031x777 +1/+3 32x8 small grid: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: anti_transpose 32 1031x777 +1/+3 32x16: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: anti_transpose 32 1031x777 +1/+3 32x32: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: anti_transpose 32 1031x777 +1/+3 32x4: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: anti_transpose 32 1031x777 +1/+3 32x8x2: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: anti_transpose 32 1031x777 +1/+3 64x4: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: anti_transpose 32 1031x777 +1/+3 128x1: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: anti_transpose 32 1031x777 +1/+3 8x8: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: rotate90 64 1031x777 +1/+3 32x8 original grid: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: rotate90 64 1031x777 +1/+3 32x8 one tile per block: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: rotate90 64 1031x777 +1/+3 32x8 one block: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: rotate90 64 1031x777 +1/+3 32x8 small grid: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: rotate90 64 1031x777 +1/+3 32x16: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: rotate90 64 1031x777 +1/+3 32x32: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: rotate90 64 1031x777 +1/+3 32x4: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: rotate90 64 1031x777 +1/+3 32x8x2: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: rotate90 64 1031x777 +1/+3 64x4: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: rotate90 64 1031x777 +1/+3 128x1: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: rotate90 64 1031x777 +1/+3 8x8: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: rotate270 64 1031x777 +1/+3 32x8 original grid: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: rotate270 64 1031x777 +1/+3 32x8 one tile per block: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: rotate270 64 1031x777 +1/+3 32x8 one block: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: rotate270 64 1031x777 +1/+3 32x8 small grid: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: rotate270 64 1031x777 +1/+3 32x16: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: rotate270 64 1031x777 +1/+3 32x32: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: rotate270 64 1031x777 +1/+3 32x4: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: rotate270 64 1031x777 +1/+3 32x8x2: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: rotate270 64 1031x777 +1/+3 64x4: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: rotate270 64 1031x777 +1/+3 128x1: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: rotate270 64 1031x777 +1/+3 8x8: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: flip_x 64 1031x777 +1/+3 32x8 original grid: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: flip_x 64 1031x777 +1/+3 32x8 one tile per block: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: flip_x 64 1031x777 +1/+3 32x8 one block: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: flip_x 64 1031x777 +1/+3 32x8 small grid: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: flip_x 64 1031x777 +1/+3 32x16: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: flip_x 64 1031x777 +1/+3 32x32: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: flip_x 64 1031x777 +1/+3 32x4: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: flip_x 64 1031x777 +1/+3 32x8x2: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: flip_x 64 1031x777 +1/+3 64x4: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: flip_x 64 1031x777 +1/+3 128x1: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: flip_x 64 1031x777 +1/+3 8x8: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: anti_transpose 64 1031x777 +1/+3 32x8 original grid: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: anti_transpose 64 1031x777 +1/+3 32x8 one tile per block: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: anti_transpose 64 1031x777 +1/+3 32x8 one block: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: anti_transpose 64 1031x777 +1/+3 32x8 small grid: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: anti_transpose 64 1031x777 +1/+3 32x16: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: anti_transpose 64 1031x777 +1/+3 32x32: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: anti_transpose 64 1031x777 +1/+3 32x4: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: anti_transpose 64 1031x777 +1/+3 32x8x2: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: anti_transpose 64 1031x777 +1/+3 64x4: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: anti_transpose 64 1031x777 +1/+3 128x1: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: anti_transpose 64 1031x777 +1/+3 8x8: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: rotate90_fixed 32 1031x777 32x8 (tiled): ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: rotate90_fixed 32 1031x777 16x16 (original body): ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: rotate90_fixed 32 1031x777 32x4 (original body): ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: rotate90_fixed 64 1031x777 32x8 (tiled): ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: rotate90_fixed 64 1031x777 16x16 (original body): ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: rotate90_fixed 64 1031x777 32x4 (original body): ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: PASS
#include "transpose_buffers.h"

namespace orig {
#include "transpose_reversed.cu"
} // namespace orig
namespace c32 {
#include "t32.cu"
} // namespace c32
namespace c64 {
#include "t64.cu"
} // namespace c64

namespace {

struct Shape {
  const char *Name;
  dim3 Grid, Block;
};

// The launch shapes a tiled kernel of tile side T must be correct for, over
// X x Y threads' positions: the fast path's blocks (32 x 8; 32 x 16 for
// flip_x) with the original grid, one tile per block, one block and a small
// grid; other blocks, which take the generic loop.
std::vector<Shape> shapes(unsigned X, unsigned Y, unsigned T) {
  using check::ceilDiv;
  dim3 tiles(ceilDiv(X, T), ceilDiv(Y, T));
  return {{"32x8 original grid", dim3(ceilDiv(X, 32), ceilDiv(Y, 8)), dim3(32, 8)},
          {"32x8 one tile per block", tiles, dim3(32, 8)},
          {"32x8 one block", dim3(1, 1), dim3(32, 8)},
          {"32x8 small grid", dim3(3, 2), dim3(32, 8)},
          {"32x16", tiles, dim3(32, 16)},
          {"32x32", tiles, dim3(32, 32)},
          {"32x4", tiles, dim3(32, 4)},
          {"32x8x2", tiles, dim3(32, 8, 2)},
          {"64x4", dim3(ceilDiv(X, 64), ceilDiv(Y, 4)), dim3(64, 4)},
          {"128x1", tiles, dim3(128, 1)},
          {"8x8", dim3(ceilDiv(X, 8), ceilDiv(Y, 8)), dim3(8, 8)}};
}

bool ok = true;

// One kernel of one tile side on a w x h image (h rows of w elements in
// 'in'), its threads over X x Y positions: Launch(Cand, grid, block, in,
// out) runs the original (Cand false) or the rewrite. The reference is the
// original with 32 x 8 blocks over every position.
template <typename T, typename Launch>
void checkKernel(const char *name, const char *variant, Launch launch, unsigned X, unsigned Y,
                 unsigned Tile, unsigned w, unsigned h, unsigned offIn, unsigned offOut) {
  Buffers<T> B(size_t(w) * h, w + 2 * h);
  auto run = [&](bool cand, dim3 grid, dim3 block) {
    check::poison(B.Out, B.N);
    launch(cand, grid, block, B.In + offIn, B.Out + offOut);
    CK(cudaGetLastError());
    return check::download(B.Out, B.N);
  };
  auto ref = run(false, dim3(check::ceilDiv(X, 32), check::ceilDiv(Y, 8)), dim3(32, 8));
  for (const Shape &S : shapes(X, Y, Tile)) {
    char what[160];
    std::snprintf(what, sizeof what, "%s %s %ux%u +%u/+%u %s", name, variant, w, h, offIn, offOut,
                  S.Name);
    ok &= check::compare(what, ref, run(true, S.Grid, S.Block), 0, 0);
  }
}

// The four kernels with tiles of side T from namespace NS.
#define CHECK_ALL(NS, T, w, h, offIn, offOut)                                                      \
  do {                                                                                             \
    checkKernel<float>(                                                                            \
        "rotate90", #T,                                                                            \
        [&](bool c, dim3 g, dim3 b, const float *i, float *o) {                                   \
          (c ? NS::rotate90 : orig::rotate90)<<<g, b>>>(i, o, int(w), int(h));                     \
        },                                                                                         \
        w, h, T, w, h, offIn, offOut);                                                             \
    checkKernel<double>(                                                                           \
        "rotate270", #T,                                                                           \
        [&](bool c, dim3 g, dim3 b, const double *i, double *o) {                                 \
          (c ? NS::rotate270 : orig::rotate270)<<<g, b>>>(i, o, int(w), int(h));                   \
        },                                                                                         \
        h, w, T, w, h, offIn, offOut);                                                             \
    checkKernel<float>(                                                                            \
        "flip_x", #T,                                                                              \
        [&](bool c, dim3 g, dim3 b, const float *i, float *o) {                                   \
          (c ? NS::flip_x : orig::flip_x)<<<g, b>>>(i, o, 0.75f, int(w), int(h));                  \
        },                                                                                         \
        w, h, T, w, h, offIn, offOut);                                                             \
    checkKernel<float>(                                                                            \
        "anti_transpose", #T,                                                                      \
        [&](bool c, dim3 g, dim3 b, const float *i, float *o) {                                   \
          (c ? NS::anti_transpose : orig::anti_transpose)<<<g, b>>>(i, o, int(w), int(h));         \
        },                                                                                         \
        w, h, T, w, h, offIn, offOut);                                                             \
  } while (0)

// Positions written with the constants 32 and 8: tiled for 32 x 8 blocks,
// the original body for others, on the original grid.
template <typename K> void checkFixed(const char *variant, K cand, unsigned w, unsigned h) {
  Buffers<float> B(size_t(w) * h, 3);
  auto run = [&](auto kernel, dim3 block) {
    check::poison(B.Out, B.N);
    kernel<<<dim3(check::ceilDiv(w, 32), check::ceilDiv(h, 8)), block>>>(B.In, B.Out, int(w),
                                                                         int(h));
    CK(cudaGetLastError());
    return check::download(B.Out, B.N);
  };
  const Shape Blocks[] = {{"32x8 (tiled)", dim3(), dim3(32, 8)},
                          {"16x16 (original body)", dim3(), dim3(16, 16)},
                          {"32x4 (original body)", dim3(), dim3(32, 4)}};
  for (const Shape &S : Blocks) {
    char what[160];
    std::snprintf(what, sizeof what, "rotate90_fixed %s %ux%u %s", variant, w, h, S.Name);
    // Other blocks with the same grid cover other elements (and leave some
    // unwritten); the rewrite must do the same.
    ok &= check::compare(what, run(orig::rotate90_fixed, S.Block), run(cand, S.Block), 0, 0);
  }
}

void bench() {
  unsigned n = 8192;
  Buffers<float> B(size_t(n) * n, 1);
  dim3 block(32, 8), grid(n / 32, n / 8), t32(n / 32, n / 32), t64(n / 64, n / 64);
  double t0 = check::time([&] { orig::rotate90<<<grid, block>>>(B.In, B.Out, n, n); });
  check::report("rotate90 8192^2 f32, 32 x 32 tiles", t0,
                check::time([&] { c32::rotate90<<<t32, block>>>(B.In, B.Out, n, n); }));
  check::report("rotate90 8192^2 f32, 64 x 64 tiles", t0,
                check::time([&] { c64::rotate90<<<t64, block>>>(B.In, B.Out, n, n); }));
  t0 = check::time([&] { orig::flip_x<<<grid, block>>>(B.In, B.Out, 0.75f, n, n); });
  check::report("flip_x 8192^2 f32, 32 x 32 tiles, 32 x 16 blocks", t0, check::time([&] {
                  c32::flip_x<<<t32, dim3(32, 16)>>>(B.In, B.Out, 0.75f, n, n);
                }));
  check::report("flip_x 8192^2 f32, 64 x 64 tiles, 32 x 16 blocks", t0, check::time([&] {
                  c64::flip_x<<<t64, dim3(32, 16)>>>(B.In, B.Out, 0.75f, n, n);
                }));
  t0 = check::time([&] { orig::anti_transpose<<<grid, block>>>(B.In, B.Out, n, n); });
  check::report("anti_transpose 8192^2 f32, 32 x 32 tiles", t0,
                check::time([&] { c32::anti_transpose<<<t32, block>>>(B.In, B.Out, n, n); }));
  check::report("anti_transpose 8192^2 f32, 64 x 64 tiles", t0,
                check::time([&] { c64::anti_transpose<<<t64, block>>>(B.In, B.Out, n, n); }));
  Buffers<double> D(size_t(n) * n, 2);
  double d0 = check::time([&] {
    orig::rotate270<<<dim3(n / 16, n / 16), dim3(16, 16)>>>(D.In, D.Out, n, n);
  });
  check::report("rotate270 8192^2 f64, 32 x 32 tiles, 32 x 8 blocks", d0,
                check::time([&] { c32::rotate270<<<t32, block>>>(D.In, D.Out, n, n); }));
  check::report("rotate270 8192^2 f64, 64 x 64 tiles, 32 x 8 blocks", d0,
                check::time([&] { c64::rotate270<<<t64, block>>>(D.In, D.Out, n, n); }));
}

} // namespace

int main(int argc, char **argv) {
  // Sizes that are not multiples of 32 or 64 (or of the blocks), a
  // multiple of 64 (every tile full), and one smaller than a tile.
  const unsigned Sizes[][2] = {{1031, 777}, {256, 192}, {5, 3}};
  for (const auto &S : Sizes) {
    unsigned w = S[0], h = S[1];
    CHECK_ALL(c32, 32, w, h, 0, 0);
    CHECK_ALL(c64, 64, w, h, 0, 0);
  }
  CHECK_ALL(c32, 32, 1031u, 777u, 1, 3);
  CHECK_ALL(c64, 64, 1031u, 777u, 1, 3);
  checkFixed("32", c32::rotate90_fixed, 1031, 777);
  checkFixed("64", c64::rotate90_fixed, 1031, 777);
  if (check::bench(argc, argv))
    bench();
  std::printf("%s\n", ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
