// The transpose-tile rule's rewrites of transposes over a 1D grid (a flat
// index t split into the row t / d and the column t % d) compute bitwise
// what the originals compute, on the GPU, with the original 1D launch
// contract: the float transpose (rewritten for 256-thread blocks), the
// scaled double one with size_t and the names swapped (128-thread blocks),
// the store-coalesced one on shorts, the grid-stride loop on 64-bit
// integers (1024-thread blocks) and one whose flat index is written with
// the constant 256 (the tiled body for 256-thread blocks, the original body
// for others), each with 32 x 32 tiles (the first proposal) and 64 x 64
// tiles (the second). Every kernel runs with 1D blocks of 256 threads on
// the original grid (ceil(rows * cols / 256) blocks), one tile per block,
// one block and a small grid, and with blocks of 128, 96, 1024 and 32
// threads on their original grids; on sizes that are not multiples of 32
// or 64, a multiple of 64, one smaller than a tile, and with pointers
// offset by 1 and 3 elements (the whole allocation is compared, so a stray
// write shows). `--bench` times 8192^2.
// REQUIRES: gpu, cuda
// RUN: rm -rf %t.d && mkdir -p %t.d
// RUN: forge-port propose %S/../Inputs/rules/transpose_flat.cu --kernel transpose_flat --block 256 --rules=transpose-tile --apply -o %t.d/a32.cu
// RUN: forge-port propose %t.d/a32.cu --kernel transpose_flat_swapped --block 128 --rules=transpose-tile --apply -o %t.d/b32.cu
// RUN: forge-port propose %t.d/b32.cu --kernel transpose_flat_store --block 256 --rules=transpose-tile --apply -o %t.d/c32.cu
// RUN: forge-port propose %t.d/c32.cu --kernel transpose_flat_loop --block 1024 --rules=transpose-tile --apply -o %t.d/d32.cu
// RUN: forge-port propose %t.d/d32.cu --kernel transpose_flat256 --block 256 --rules=transpose-tile --apply -o %t.d/t32.cu
// RUN: forge-port propose %S/../Inputs/rules/transpose_flat.cu --kernel transpose_flat --block 256 --rules=transpose-tile --format=json > %t.d/a64.json
// RUN: %python %S/../../Inputs/apply_proposal.py %t.d/a64.json 1 %S/../Inputs/rules/transpose_flat.cu > %t.d/a64.cu
// RUN: forge-port propose %t.d/a64.cu --kernel transpose_flat_swapped --block 128 --rules=transpose-tile --format=json > %t.d/b64.json
// RUN: %python %S/../../Inputs/apply_proposal.py %t.d/b64.json 1 %t.d/a64.cu > %t.d/b64.cu
// RUN: forge-port propose %t.d/b64.cu --kernel transpose_flat_store --block 256 --rules=transpose-tile --format=json > %t.d/c64.json
// RUN: %python %S/../../Inputs/apply_proposal.py %t.d/c64.json 1 %t.d/b64.cu > %t.d/c64.cu
// RUN: forge-port propose %t.d/c64.cu --kernel transpose_flat_loop --block 1024 --rules=transpose-tile --format=json > %t.d/d64.json
// RUN: %python %S/../../Inputs/apply_proposal.py %t.d/d64.json 1 %t.d/c64.cu > %t.d/d64.cu
// RUN: forge-port propose %t.d/d64.cu --kernel transpose_flat256 --block 256 --rules=transpose-tile --format=json > %t.d/t64.json
// RUN: %python %S/../../Inputs/apply_proposal.py %t.d/t64.json 1 %t.d/d64.cu > %t.d/t64.cu
// RUN: test $(grep -c "forge_tile\[32\]\[32 + 1\]" %t.d/t32.cu) -eq 5
// RUN: test $(grep -c "forge_tile\[64\]\[64 + 1\]" %t.d/t64.cu) -eq 5
// RUN: grep -q "blockDim.x == 128 && blockDim.y == 1 && blockDim.z == 1" %t.d/t32.cu
// RUN: grep -q "blockDim.x == 1024 && blockDim.y == 1 && blockDim.z == 1" %t.d/t32.cu
// RUN: grep -q "if (blockDim.x != 256) {" %t.d/t32.cu
// RUN: %nvcc -arch=native -O3 -I%S/../Inputs/rules -I%t.d %s -o %t.d/check
// RUN: %t.d/check | FileCheck %s --implicit-check-not=MISMATCH --implicit-check-not=FAIL
// CHECK: transpose_flat 32 1031x777 +0/+0 256 original grid: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_flat 32 1031x777 +0/+0 256 one tile per block: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_flat 32 1031x777 +0/+0 256 one block: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_flat 32 1031x777 +0/+0 256 small grid: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_flat 32 1031x777 +0/+0 128: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_flat 32 1031x777 +0/+0 96: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_flat 32 1031x777 +0/+0 1024: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_flat 32 1031x777 +0/+0 32: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_flat 32 256x192 +0/+0 256 original grid: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_flat 32 256x192 +0/+0 256 one tile per block: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_flat 32 256x192 +0/+0 256 one block: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_flat 32 256x192 +0/+0 256 small grid: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_flat 32 256x192 +0/+0 128: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_flat 32 256x192 +0/+0 96: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_flat 32 256x192 +0/+0 1024: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_flat 32 256x192 +0/+0 32: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_flat 32 5x3 +0/+0 256 original grid: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_flat 32 5x3 +0/+0 256 one tile per block: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_flat 32 5x3 +0/+0 256 one block: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_flat 32 5x3 +0/+0 256 small grid: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_flat 32 5x3 +0/+0 128: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_flat 32 5x3 +0/+0 96: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_flat 32 5x3 +0/+0 1024: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_flat 32 5x3 +0/+0 32: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_flat 32 1031x777 +1/+3 256 original grid: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_flat 32 1031x777 +1/+3 256 one tile per block: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_flat 32 1031x777 +1/+3 256 one block: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_flat 32 1031x777 +1/+3 256 small grid: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_flat 32 1031x777 +1/+3 128: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_flat 32 1031x777 +1/+3 96: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_flat 32 1031x777 +1/+3 1024: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_flat 32 1031x777 +1/+3 32: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_flat 64 1031x777 +0/+0 256 original grid: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_flat 64 1031x777 +0/+0 256 one tile per block: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_flat 64 1031x777 +0/+0 256 one block: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_flat 64 1031x777 +0/+0 256 small grid: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_flat 64 1031x777 +0/+0 128: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_flat 64 1031x777 +0/+0 96: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_flat 64 1031x777 +0/+0 1024: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_flat 64 1031x777 +0/+0 32: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_flat 64 256x192 +0/+0 256 original grid: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_flat 64 256x192 +0/+0 256 one tile per block: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_flat 64 256x192 +0/+0 256 one block: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_flat 64 256x192 +0/+0 256 small grid: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_flat 64 256x192 +0/+0 128: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_flat 64 256x192 +0/+0 96: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_flat 64 256x192 +0/+0 1024: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_flat 64 256x192 +0/+0 32: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_flat 64 5x3 +0/+0 256 original grid: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_flat 64 5x3 +0/+0 256 one tile per block: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_flat 64 5x3 +0/+0 256 one block: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_flat 64 5x3 +0/+0 256 small grid: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_flat 64 5x3 +0/+0 128: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_flat 64 5x3 +0/+0 96: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_flat 64 5x3 +0/+0 1024: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_flat 64 5x3 +0/+0 32: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_flat 64 1031x777 +1/+3 256 original grid: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_flat 64 1031x777 +1/+3 256 one tile per block: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_flat 64 1031x777 +1/+3 256 one block: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_flat 64 1031x777 +1/+3 256 small grid: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_flat 64 1031x777 +1/+3 128: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_flat 64 1031x777 +1/+3 96: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_flat 64 1031x777 +1/+3 1024: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_flat 64 1031x777 +1/+3 32: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_flat_swapped 32 1031x777 +1/+3 256 original grid: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_flat_swapped 32 1031x777 +1/+3 256 one tile per block: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_flat_swapped 32 1031x777 +1/+3 256 one block: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_flat_swapped 32 1031x777 +1/+3 256 small grid: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_flat_swapped 32 1031x777 +1/+3 128: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_flat_swapped 32 1031x777 +1/+3 96: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_flat_swapped 32 1031x777 +1/+3 1024: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_flat_swapped 32 1031x777 +1/+3 32: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_flat_swapped 32 5x3 +0/+0 256 original grid: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_flat_swapped 32 5x3 +0/+0 256 one tile per block: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_flat_swapped 32 5x3 +0/+0 256 one block: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_flat_swapped 32 5x3 +0/+0 256 small grid: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_flat_swapped 32 5x3 +0/+0 128: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_flat_swapped 32 5x3 +0/+0 96: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_flat_swapped 32 5x3 +0/+0 1024: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_flat_swapped 32 5x3 +0/+0 32: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_flat_swapped 64 1031x777 +1/+3 256 original grid: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_flat_swapped 64 1031x777 +1/+3 256 one tile per block: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_flat_swapped 64 1031x777 +1/+3 256 one block: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_flat_swapped 64 1031x777 +1/+3 256 small grid: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_flat_swapped 64 1031x777 +1/+3 128: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_flat_swapped 64 1031x777 +1/+3 96: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_flat_swapped 64 1031x777 +1/+3 1024: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_flat_swapped 64 1031x777 +1/+3 32: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_flat_swapped 64 5x3 +0/+0 256 original grid: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_flat_swapped 64 5x3 +0/+0 256 one tile per block: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_flat_swapped 64 5x3 +0/+0 256 one block: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_flat_swapped 64 5x3 +0/+0 256 small grid: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_flat_swapped 64 5x3 +0/+0 128: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_flat_swapped 64 5x3 +0/+0 96: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_flat_swapped 64 5x3 +0/+0 1024: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_flat_swapped 64 5x3 +0/+0 32: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_flat_store 32 1031x777 +1/+3 256 original grid: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_flat_store 32 1031x777 +1/+3 256 one tile per block: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_flat_store 32 1031x777 +1/+3 256 one block: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_flat_store 32 1031x777 +1/+3 256 small grid: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_flat_store 32 1031x777 +1/+3 128: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_flat_store 32 1031x777 +1/+3 96: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_flat_store 32 1031x777 +1/+3 1024: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_flat_store 32 1031x777 +1/+3 32: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_flat_store 32 5x3 +0/+0 256 original grid: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_flat_store 32 5x3 +0/+0 256 one tile per block: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_flat_store 32 5x3 +0/+0 256 one block: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_flat_store 32 5x3 +0/+0 256 small grid: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_flat_store 32 5x3 +0/+0 128: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_flat_store 32 5x3 +0/+0 96: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_flat_store 32 5x3 +0/+0 1024: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_flat_store 32 5x3 +0/+0 32: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_flat_store 64 1031x777 +1/+3 256 original grid: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_flat_store 64 1031x777 +1/+3 256 one tile per block: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_flat_store 64 1031x777 +1/+3 256 one block: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_flat_store 64 1031x777 +1/+3 256 small grid: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_flat_store 64 1031x777 +1/+3 128: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_flat_store 64 1031x777 +1/+3 96: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_flat_store 64 1031x777 +1/+3 1024: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_flat_store 64 1031x777 +1/+3 32: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_flat_store 64 5x3 +0/+0 256 original grid: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_flat_store 64 5x3 +0/+0 256 one tile per block: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_flat_store 64 5x3 +0/+0 256 one block: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_flat_store 64 5x3 +0/+0 256 small grid: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_flat_store 64 5x3 +0/+0 128: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_flat_store 64 5x3 +0/+0 96: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_flat_store 64 5x3 +0/+0 1024: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_flat_store 64 5x3 +0/+0 32: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_flat_loop 32 1031x777 +1/+3 256 original grid: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_flat_loop 32 1031x777 +1/+3 256 one tile per block: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_flat_loop 32 1031x777 +1/+3 256 one block: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_flat_loop 32 1031x777 +1/+3 256 small grid: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_flat_loop 32 1031x777 +1/+3 128: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_flat_loop 32 1031x777 +1/+3 96: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_flat_loop 32 1031x777 +1/+3 1024: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_flat_loop 32 1031x777 +1/+3 32: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_flat_loop 32 5x3 +0/+0 256 original grid: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_flat_loop 32 5x3 +0/+0 256 one tile per block: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_flat_loop 32 5x3 +0/+0 256 one block: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_flat_loop 32 5x3 +0/+0 256 small grid: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_flat_loop 32 5x3 +0/+0 128: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_flat_loop 32 5x3 +0/+0 96: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_flat_loop 32 5x3 +0/+0 1024: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_flat_loop 32 5x3 +0/+0 32: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_flat_loop 64 1031x777 +1/+3 256 original grid: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_flat_loop 64 1031x777 +1/+3 256 one tile per block: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_flat_loop 64 1031x777 +1/+3 256 one block: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_flat_loop 64 1031x777 +1/+3 256 small grid: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_flat_loop 64 1031x777 +1/+3 128: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_flat_loop 64 1031x777 +1/+3 96: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_flat_loop 64 1031x777 +1/+3 1024: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_flat_loop 64 1031x777 +1/+3 32: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_flat_loop 64 5x3 +0/+0 256 original grid: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_flat_loop 64 5x3 +0/+0 256 one tile per block: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_flat_loop 64 5x3 +0/+0 256 one block: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_flat_loop 64 5x3 +0/+0 256 small grid: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_flat_loop 64 5x3 +0/+0 128: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_flat_loop 64 5x3 +0/+0 96: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_flat_loop 64 5x3 +0/+0 1024: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_flat_loop 64 5x3 +0/+0 32: ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_flat256 32 256 (tiled): ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_flat256 32 128 (original body): ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_flat256 32 96 (original body): ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_flat256 64 256 (tiled): ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_flat256 64 128 (original body): ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: transpose_flat256 64 96 (original body): ok max_abs_err 0 rel_l2 0
// CHECK-NEXT: PASS
#include "check.h"

#include <type_traits>

namespace orig {
#include "transpose_flat.cu"
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
  unsigned Grid, Block;
};

// The 1D launches a tiled kernel of tile side T must be correct for, on a
// rows x cols problem: 256-thread blocks (the fast path of most variants)
// on the original grid, one tile per block, one block and a small grid;
// 128, 96, 1024 and 32 threads on their original grids (96 and 32 take
// the generic loop everywhere; 128 and 1024 the fast path where the
// variant was made for them).
std::vector<Shape> shapes(unsigned rows, unsigned cols, unsigned T) {
  using check::ceilDiv;
  unsigned n = rows * cols, tiles = ceilDiv(rows, T) * ceilDiv(cols, T);
  return {{"256 original grid", ceilDiv(n, 256), 256},
          {"256 one tile per block", tiles, 256},
          {"256 one block", 1, 256},
          {"256 small grid", 3, 256},
          {"128", ceilDiv(n, 128), 128},
          {"96", ceilDiv(n, 96), 96},
          {"1024", ceilDiv(n, 1024), 1024},
          {"32", ceilDiv(n, 32), 32}};
}

// Pointers Off elements past an allocation's start; the whole allocation is
// compared, so a write outside the matrix shows.
const unsigned Pad = 8;

// Random elements; integers over a wide range without -1, the value the
// poison (0xFF bytes) reads as, so that an unwritten element shows.
template <typename T> std::vector<T> values(size_t n, unsigned seed) {
  if constexpr (std::is_floating_point_v<T>)
    return check::random<T>(n, seed);
  std::vector<T> v = check::random<T>(n, seed, -30000, 30000);
  for (T &x : v)
    x = x == T(-1) ? T(1) : x * T(sizeof(T) > 4 ? 1000003 : 1);
  return v;
}

template <typename T> struct Buffers {
  std::vector<T> Host;
  T *In = nullptr, *Out = nullptr;
  size_t N;
  Buffers(size_t elems, unsigned seed) : N(elems + Pad) {
    Host = values<T>(N, seed);
    In = check::upload(Host);
    CK(cudaMalloc(&Out, N * sizeof(T)));
  }
  ~Buffers() {
    CK(cudaFree(In));
    CK(cudaFree(Out));
  }
};

bool ok = true;

// Kernel(in, out, extra..., rows, cols) against the original on its 1D
// launch of 256-thread blocks (in: rows x cols, out: cols x rows).
template <typename T, typename K, typename... Extra>
void checkFlat(const char *name, const char *variant, K original, K cand, unsigned Tile,
               unsigned rows, unsigned cols, unsigned offIn, unsigned offOut, Extra... extra) {
  Buffers<T> B(size_t(rows) * cols, rows + cols);
  const T *in = B.In + offIn;
  T *out = B.Out + offOut;
  auto run = [&](K kernel, unsigned grid, unsigned block) {
    check::poison(B.Out, B.N);
    kernel<<<grid, block>>>(in, out, extra..., int(rows), int(cols));
    CK(cudaGetLastError());
    return check::download(B.Out, B.N);
  };
  auto ref = run(original, check::ceilDiv(rows * cols, 256), 256);
  for (const Shape &S : shapes(rows, cols, Tile)) {
    char what[200];
    std::snprintf(what, sizeof what, "%s %s %ux%u +%u/+%u %s", name, variant, rows, cols, offIn,
                  offOut, S.Name);
    ok &= check::compare(what, ref, run(cand, S.Grid, S.Block), 0, 0);
  }
}

// The flat index written with the constant 256: tiled for 256-thread
// blocks, the original body for others (on the same grid, where the
// original covers other elements and leaves some unwritten).
template <typename K> void checkFixed(const char *variant, K cand, unsigned rows, unsigned cols) {
  Buffers<float> B(size_t(rows) * cols, 3);
  auto run = [&](K kernel, unsigned grid, unsigned block) {
    check::poison(B.Out, B.N);
    kernel<<<grid, block>>>(B.In, B.Out, int(rows), int(cols));
    CK(cudaGetLastError());
    return check::download(B.Out, B.N);
  };
  for (unsigned block : {256u, 128u, 96u}) {
    unsigned grid = check::ceilDiv(rows * cols, block);
    char what[160];
    std::snprintf(what, sizeof what, "transpose_flat256 %s %u (%s)", variant, block,
                  block == 256 ? "tiled" : "original body");
    ok &= check::compare(what, run(orig::transpose_flat256, grid, block),
                         run(cand, grid, block), 0, 0);
  }
}

// The float transpose on every size (and offset pointers).
template <typename K> void checkVariant(const char *variant, K cand, unsigned Tile) {
  const unsigned Sizes[][2] = {{1031, 777}, {256, 192}, {5, 3}};
  for (const auto &Size : Sizes)
    checkFlat<float>("transpose_flat", variant, orig::transpose_flat, cand, Tile, Size[0], Size[1],
                     0, 0);
  checkFlat<float>("transpose_flat", variant, orig::transpose_flat, cand, Tile, 1031, 777, 1, 3);
}

void bench() {
  unsigned n = 8192;
  unsigned grid = n / 256 * n;
  Buffers<float> B(size_t(n) * n, 1);
  double t0 = check::time([&] { orig::transpose_flat<<<grid, 256>>>(B.In, B.Out, n, n); });
  check::report("transpose_flat 8192^2 f32, 32 x 32 tiles, original 1D launch", t0,
                check::time([&] { c32::transpose_flat<<<grid, 256>>>(B.In, B.Out, n, n); }));
  check::report("transpose_flat 8192^2 f32, 64 x 64 tiles, original 1D launch", t0,
                check::time([&] { c64::transpose_flat<<<grid, 256>>>(B.In, B.Out, n, n); }));
  check::report("transpose_flat 8192^2 f32, 32 x 32 tiles, one tile per block", t0, check::time([&] {
    c32::transpose_flat<<<(n / 32) * (n / 32), 256>>>(B.In, B.Out, n, n);
  }));
}

} // namespace

int main(int argc, char **argv) {
  checkVariant("32", c32::transpose_flat, 32);
  checkVariant("64", c64::transpose_flat, 64);
  checkFlat<double>("transpose_flat_swapped", "32", orig::transpose_flat_swapped,
                    c32::transpose_flat_swapped, 32, 1031, 777, 1, 3, 0.75);
  checkFlat<double>("transpose_flat_swapped", "32", orig::transpose_flat_swapped,
                    c32::transpose_flat_swapped, 32, 5, 3, 0, 0, 0.75);
  checkFlat<double>("transpose_flat_swapped", "64", orig::transpose_flat_swapped,
                    c64::transpose_flat_swapped, 64, 1031, 777, 1, 3, 0.75);
  checkFlat<double>("transpose_flat_swapped", "64", orig::transpose_flat_swapped,
                    c64::transpose_flat_swapped, 64, 5, 3, 0, 0, 0.75);
  checkFlat<short>("transpose_flat_store", "32", orig::transpose_flat_store,
                   c32::transpose_flat_store, 32, 1031, 777, 1, 3);
  checkFlat<short>("transpose_flat_store", "32", orig::transpose_flat_store,
                   c32::transpose_flat_store, 32, 5, 3, 0, 0);
  checkFlat<short>("transpose_flat_store", "64", orig::transpose_flat_store,
                   c64::transpose_flat_store, 64, 1031, 777, 1, 3);
  checkFlat<short>("transpose_flat_store", "64", orig::transpose_flat_store,
                   c64::transpose_flat_store, 64, 5, 3, 0, 0);
  checkFlat<long long>("transpose_flat_loop", "32", orig::transpose_flat_loop,
                       c32::transpose_flat_loop, 32, 1031, 777, 1, 3);
  checkFlat<long long>("transpose_flat_loop", "32", orig::transpose_flat_loop,
                       c32::transpose_flat_loop, 32, 5, 3, 0, 0);
  checkFlat<long long>("transpose_flat_loop", "64", orig::transpose_flat_loop,
                       c64::transpose_flat_loop, 64, 1031, 777, 1, 3);
  checkFlat<long long>("transpose_flat_loop", "64", orig::transpose_flat_loop,
                       c64::transpose_flat_loop, 64, 5, 3, 0, 0);
  checkFixed("32", c32::transpose_flat256, 1031, 777);
  checkFixed("64", c64::transpose_flat256, 1031, 777);
  if (check::bench(argc, argv))
    bench();
  std::printf("%s\n", ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
