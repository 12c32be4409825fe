// The histogram-privatize rule's rewrites count exactly what the originals
// count, on the GPU: the bench's 256-bin byte histogram (grid-stride), a
// parameter number of bins (dynamic shared memory, through the rewritten
// file's own launch too), a min-clamped one with an early return and 64-bit
// counters, a weighted float histogram (weights whose sums are exact in
// float, so the order of the additions cannot show), a 2D image histogram
// over a pitched image (its rows in 16-byte loads, the whole grid striding
// over them: 1D, 2D and one-block grids; odd pitches, rows narrower than a
// step, offset images), a guarded atomicMax (virtual blocks) and
// an atomicOr of bits, each
// with the lane copies ([bin][lane]) of every constant-bin kernel first and
// the one-copy proposal second. The
// 16-byte path (its two variants, and the scalar third proposal of the
// bench kernel): the bench kernel, one byte per thread under a guard, 16-bit
// keys after an early exit and byte keys with float weights, with the data
// 0..3 elements past a 16-byte boundary, counts shorter than the scalar head,
// weights at another alignment than the keys (the all-scalar fallback), the
// original grid, a capped grid and one block.
// Float histograms whose index is clamped by statements after its
// declaration (hist_clamps.cu: a ?: assignment, if / else if, two ifs,
// min and max statements, the local outside a grid-stride loop; to a
// parameter number of bins and to a constant one), with NaN, infinities and
// values beyond either end that the clamps catch.
// Counts are odd (not multiples of the block or of 4), data pointers are
// offset from the allocation (misaligned for the bytes), and each kernel
// runs with several block sizes (one not a multiple of 32), the original
// grid, a capped grid and a single block. Comparisons are exact.
// REQUIRES: gpu, cuda
// RUN: rm -rf %t.d && mkdir -p %t.d
// RUN: forge-port propose %S/../Inputs/rules/histograms.cu --kernel histogram256 --block 256 --rules=histogram-privatize --apply -o %t.d/h1.cu
// RUN: forge-port propose %t.d/h1.cu --kernel hist_mod --spec %S/../Inputs/rules/hist_mod.json --rules=histogram-privatize --apply -o %t.d/h2.cu
// RUN: forge-port propose %t.d/h2.cu --kernel clamped --block 256 --rules=histogram-privatize --apply -o %t.d/h3.cu
// RUN: forge-port propose %t.d/h3.cu --kernel weighted --block 256 --rules=histogram-privatize --apply -o %t.d/h4.cu
// RUN: forge-port propose %t.d/h4.cu --kernel image --block 16,16 --rules=histogram-privatize --apply -o %t.d/h5.cu
// RUN: forge-port propose %t.d/h5.cu --kernel maxbin --block 256 --rules=histogram-privatize --apply -o %t.d/h6.cu
// RUN: forge-port propose %t.d/h6.cu --kernel orbits --block 256 --rules=histogram-privatize --apply -o %t.d/h7.cu
// RUN: forge-port propose %t.d/h7.cu --kernel bytes1 --block 256 --rules=histogram-privatize --apply -o %t.d/h8.cu
// RUN: forge-port propose %t.d/h8.cu --kernel keys16 --block 256 --rules=histogram-privatize --apply -o %t.d/h9.cu
// RUN: forge-port propose %t.d/h9.cu --kernel wbytes --block 256 --rules=histogram-privatize --apply -o %t.d/h10.cu
// RUN: forge-port propose %t.d/h10.cu --kernel ifclamp --block 256 --rules=histogram-privatize --apply -o %t.d/h11.cu
// RUN: forge-port propose %t.d/h11.cu --kernel letters --block 256 --rules=histogram-privatize --apply -o %t.d/h12.cu
// RUN: forge-port propose %t.d/h12.cu --kernel joint --block 256 --rules=histogram-privatize --apply -o %t.d/h13.cu
// RUN: forge-port propose %t.d/h13.cu --kernel image16 --block 16,16 --rules=histogram-privatize --apply -o %t.d/histograms.priv.cu
// The first proposals of every kernel read 16 bytes per load: 1- and
// 2-byte keys (histogram256, bytes1, keys16, wbytes, letters, joint) and,
// since 4-byte elements take the path too, hist_mod, clamped, weighted,
// maxbin, orbits and ifclamp (four elements per load); the 2D image row by
// row, from each row's own 16-byte boundary, and the 16-bit image whose
// index is computed before its guard; both images also as one range when
// their rows have no gap (two more 16-byte loads from forge_h).
// RUN: grep -c "reinterpret_cast<const uint4 \*>(.* + forge_h)" %t.d/histograms.priv.cu | FileCheck %s --check-prefix=VEC
// VEC: 21
// RUN: grep -c "reinterpret_cast<const uint4 \*>(forge_p0 + forge_a)" %t.d/histograms.priv.cu | FileCheck %s --check-prefix=ROWS
// ROWS: 2
// The first proposals of the thirteen constant-bin kernels count into lane
// copies; the second proposals into one copy, with 16-byte loads
// (histogram256, maxbin, orbits, bytes1, keys16, wbytes).
// RUN: grep -c "\]\[forge_w\]" %t.d/histograms.priv.cu | FileCheck %s --check-prefix=LANES
// LANES: 13
// RUN: forge-port propose %S/../Inputs/rules/histograms.cu --kernel histogram256 --block 256 --rules=histogram-privatize --format=json > %t.d/p1.json
// RUN: %python %S/../Inputs/rules/apply_proposal.py %t.d/p1.json 1 %S/../Inputs/rules/histograms.cu %t.d/w1.cu
// RUN: forge-port propose %t.d/w1.cu --kernel maxbin --block 256 --rules=histogram-privatize --format=json > %t.d/p2.json
// RUN: %python %S/../Inputs/rules/apply_proposal.py %t.d/p2.json 1 %t.d/w1.cu %t.d/w2.cu
// RUN: forge-port propose %t.d/w2.cu --kernel orbits --block 256 --rules=histogram-privatize --format=json > %t.d/p3.json
// RUN: %python %S/../Inputs/rules/apply_proposal.py %t.d/p3.json 1 %t.d/w2.cu %t.d/w3.cu
// RUN: forge-port propose %t.d/w3.cu --kernel bytes1 --block 256 --rules=histogram-privatize --format=json > %t.d/p4.json
// RUN: %python %S/../Inputs/rules/apply_proposal.py %t.d/p4.json 1 %t.d/w3.cu %t.d/w4.cu
// RUN: forge-port propose %t.d/w4.cu --kernel keys16 --block 256 --rules=histogram-privatize --format=json > %t.d/p5.json
// RUN: %python %S/../Inputs/rules/apply_proposal.py %t.d/p5.json 1 %t.d/w4.cu %t.d/w5.cu
// RUN: forge-port propose %t.d/w5.cu --kernel image --block 16,16 --rules=histogram-privatize --format=json > %t.d/p7.json
// RUN: %python %S/../Inputs/rules/apply_proposal.py %t.d/p7.json 1 %t.d/w5.cu %t.d/w6.cu
// RUN: forge-port propose %t.d/w6.cu --kernel wbytes --block 256 --rules=histogram-privatize --format=json > %t.d/p6.json
// RUN: %python %S/../Inputs/rules/apply_proposal.py %t.d/p6.json 1 %t.d/w6.cu %t.d/histograms.second.cu
// RUN: not grep -q "forge_w" %t.d/histograms.second.cu
// The third proposal of the 16-byte kernels: the scalar loop, one copy;
// for the 2D image, the scalar copy over virtual blocks.
// RUN: %python %S/../Inputs/rules/apply_proposal.py %t.d/p1.json 2 %S/../Inputs/rules/histograms.cu %t.d/s1.cu
// RUN: forge-port propose %t.d/s1.cu --kernel image --block 16,16 --rules=histogram-privatize --format=json > %t.d/p8.json
// RUN: %python %S/../Inputs/rules/apply_proposal.py %t.d/p8.json 2 %t.d/s1.cu %t.d/histograms.scalar.cu
// RUN: not grep -q "uint4" %t.d/histograms.scalar.cu
// RUN: grep -q "auto forge_block = \[&\](unsigned forge_bx, unsigned forge_by)" %t.d/histograms.scalar.cu
// The clamps assigned after the declaration: the first proposals (16-byte
// loads of the floats but for clamp_loop, whose local lives outside the
// loop; lane copies of the constant 100 bins), and the second (virtual
// blocks of the guards, the scalar loop of clamp_minmax, one copy of
// const_ternary in 16-byte loads).
// RUN: for k in clamp_ternary clamp_ifelse clamp_ifs clamp_minmax clamp_loop; do sed "s/\"clamp_ternary\"/\"$k\"/" %S/../Inputs/rules/hist_clamps.json > %t.d/$k.json; done
// RUN: forge-port propose %S/../Inputs/rules/hist_clamps.cu --spec %t.d/clamp_ternary.json --rules=histogram-privatize --apply -o %t.d/c1.cu
// RUN: forge-port propose %t.d/c1.cu --spec %t.d/clamp_ifelse.json --rules=histogram-privatize --apply -o %t.d/c2.cu
// RUN: forge-port propose %t.d/c2.cu --spec %t.d/clamp_ifs.json --rules=histogram-privatize --apply -o %t.d/c3.cu
// RUN: forge-port propose %t.d/c3.cu --spec %t.d/clamp_minmax.json --rules=histogram-privatize --apply -o %t.d/c4.cu
// RUN: forge-port propose %t.d/c4.cu --spec %t.d/clamp_loop.json --rules=histogram-privatize --apply -o %t.d/c5.cu
// RUN: forge-port propose %t.d/c5.cu --kernel const_ternary --block 256 --rules=histogram-privatize --apply -o %t.d/c6.cu
// RUN: forge-port propose %t.d/c6.cu --kernel const_ifelse --block 256 --rules=histogram-privatize --apply -o %t.d/hist_clamps.priv.cu
// RUN: grep -c "reinterpret_cast<const uint4 \*>(x + forge_h)" %t.d/hist_clamps.priv.cu | FileCheck %s --check-prefix=CVEC
// CVEC: 6
// RUN: grep -c "extern __shared__ unsigned int forge_hist_clamp_" %t.d/hist_clamps.priv.cu | FileCheck %s --check-prefix=CDYN
// CDYN: 5
// RUN: forge-port propose %S/../Inputs/rules/hist_clamps.cu --spec %t.d/clamp_ternary.json --rules=histogram-privatize --format=json > %t.d/cq1.json
// RUN: %python %S/../Inputs/rules/apply_proposal.py %t.d/cq1.json 1 %S/../Inputs/rules/hist_clamps.cu %t.d/cs1.cu
// RUN: forge-port propose %t.d/cs1.cu --spec %t.d/clamp_ifelse.json --rules=histogram-privatize --format=json > %t.d/cq2.json
// RUN: %python %S/../Inputs/rules/apply_proposal.py %t.d/cq2.json 1 %t.d/cs1.cu %t.d/cs2.cu
// RUN: forge-port propose %t.d/cs2.cu --spec %t.d/clamp_ifs.json --rules=histogram-privatize --format=json > %t.d/cq3.json
// RUN: %python %S/../Inputs/rules/apply_proposal.py %t.d/cq3.json 1 %t.d/cs2.cu %t.d/cs3.cu
// RUN: forge-port propose %t.d/cs3.cu --spec %t.d/clamp_minmax.json --rules=histogram-privatize --format=json > %t.d/cq4.json
// RUN: %python %S/../Inputs/rules/apply_proposal.py %t.d/cq4.json 1 %t.d/cs3.cu %t.d/cs4.cu
// RUN: forge-port propose %t.d/cs4.cu --kernel const_ternary --block 256 --rules=histogram-privatize --format=json > %t.d/cq5.json
// RUN: %python %S/../Inputs/rules/apply_proposal.py %t.d/cq5.json 1 %t.d/cs4.cu %t.d/cs5.cu
// RUN: forge-port propose %t.d/cs5.cu --kernel const_ifelse --block 256 --rules=histogram-privatize --format=json > %t.d/cq6.json
// RUN: %python %S/../Inputs/rules/apply_proposal.py %t.d/cq6.json 2 %t.d/cs5.cu %t.d/hist_clamps.second.cu
// RUN: grep -c "auto forge_block = \[&\](unsigned forge_bx)" %t.d/hist_clamps.second.cu | FileCheck %s --check-prefix=CVB
// CVB: 4
// RUN: %nvcc -arch=native -O3 -I%S/../Inputs/rules -I%t.d %s -o %t.d/check
// RUN: %t.d/check | FileCheck %s --implicit-check-not=MISMATCH --implicit-check-not=FAIL
// CHECK: histogram256 vector lanes block 256 original grid: ok max_abs_err 0 rel_l2 0
// CHECK: histogram256 vector lanes block 1024 capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: histogram256 vector lanes block 100 original grid: ok max_abs_err 0 rel_l2 0
// CHECK: histogram256 vector lanes block 256 one block: ok max_abs_err 0 rel_l2 0
// CHECK: histogram256 vector lanes offset 0 count 3000014 block 96 capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: histogram256 vector lanes offset 0 count 20011 block 96 capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: histogram256 vector lanes offset 0 count 13 block 96 capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: histogram256 vector lanes offset 0 count 1 block 96 capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: histogram256 vector lanes offset 1 count 3000013 block 96 capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: histogram256 vector lanes offset 1 count 20011 block 96 capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: histogram256 vector lanes offset 1 count 13 block 96 capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: histogram256 vector lanes offset 1 count 1 block 96 capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: histogram256 vector lanes offset 2 count 3000012 block 96 capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: histogram256 vector lanes offset 2 count 20011 block 96 capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: histogram256 vector lanes offset 2 count 13 block 96 capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: histogram256 vector lanes offset 2 count 1 block 96 capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: histogram256 vector lanes offset 3 count 3000011 block 96 capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: histogram256 vector lanes offset 3 count 20011 block 96 capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: histogram256 vector lanes offset 3 count 13 block 96 capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: histogram256 vector lanes offset 3 count 1 block 96 capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: histogram256 vector block 256 original grid: ok max_abs_err 0 rel_l2 0
// CHECK: histogram256 vector block 1024 capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: histogram256 vector block 100 original grid: ok max_abs_err 0 rel_l2 0
// CHECK: histogram256 vector block 256 one block: ok max_abs_err 0 rel_l2 0
// CHECK: histogram256 vector offset 0 count 3000014 block 96 capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: histogram256 vector offset 0 count 20011 block 96 capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: histogram256 vector offset 0 count 13 block 96 capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: histogram256 vector offset 0 count 1 block 96 capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: histogram256 vector offset 1 count 3000013 block 96 capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: histogram256 vector offset 1 count 20011 block 96 capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: histogram256 vector offset 1 count 13 block 96 capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: histogram256 vector offset 1 count 1 block 96 capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: histogram256 vector offset 2 count 3000012 block 96 capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: histogram256 vector offset 2 count 20011 block 96 capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: histogram256 vector offset 2 count 13 block 96 capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: histogram256 vector offset 2 count 1 block 96 capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: histogram256 vector offset 3 count 3000011 block 96 capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: histogram256 vector offset 3 count 20011 block 96 capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: histogram256 vector offset 3 count 13 block 96 capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: histogram256 vector offset 3 count 1 block 96 capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: histogram256 scalar block 256 original grid: ok max_abs_err 0 rel_l2 0
// CHECK: histogram256 scalar block 1024 capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: histogram256 scalar block 100 original grid: ok max_abs_err 0 rel_l2 0
// CHECK: histogram256 scalar block 256 one block: ok max_abs_err 0 rel_l2 0
// CHECK: histogram256 scalar offset 0 count 3000014 block 96 capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: histogram256 scalar offset 0 count 20011 block 96 capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: histogram256 scalar offset 0 count 13 block 96 capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: histogram256 scalar offset 0 count 1 block 96 capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: histogram256 scalar offset 1 count 3000013 block 96 capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: histogram256 scalar offset 1 count 20011 block 96 capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: histogram256 scalar offset 1 count 13 block 96 capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: histogram256 scalar offset 1 count 1 block 96 capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: histogram256 scalar offset 2 count 3000012 block 96 capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: histogram256 scalar offset 2 count 20011 block 96 capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: histogram256 scalar offset 2 count 13 block 96 capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: histogram256 scalar offset 2 count 1 block 96 capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: histogram256 scalar offset 3 count 3000011 block 96 capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: histogram256 scalar offset 3 count 20011 block 96 capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: histogram256 scalar offset 3 count 13 block 96 capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: histogram256 scalar offset 3 count 1 block 96 capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: hist_mod nbins 1000 block 256 original grid: ok max_abs_err 0 rel_l2 0
// CHECK: hist_mod nbins 1000 block 96 capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: hist_mod nbins 1000 one block: ok max_abs_err 0 rel_l2 0
// CHECK: hist_mod through the rewritten launch: ok max_abs_err 0 rel_l2 0
// CHECK: hist_mod nbins 7 block 128 original grid: ok max_abs_err 0 rel_l2 0
// CHECK: hist_mod nbins 12288 block 512 capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: clamped block 256: ok max_abs_err 0 rel_l2 0
// CHECK: clamped block 33: ok max_abs_err 0 rel_l2 0
// CHECK: clamped block 1024: ok max_abs_err 0 rel_l2 0
// CHECK: weighted block 256: ok max_abs_err 0 rel_l2 0
// CHECK: weighted block 160: ok max_abs_err 0 rel_l2 0
// CHECK: image 16x16: ok max_abs_err 0 rel_l2 0
// CHECK: image 32x4: ok max_abs_err 0 rel_l2 0
// CHECK: image 7x9: ok max_abs_err 0 rel_l2 0
// CHECK: image 16x16 capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: image 32x8 one block: ok max_abs_err 0 rel_l2 0
// CHECK: image 16x16 grid 5x3: ok max_abs_err 0 rel_l2 0
// CHECK: image one copy 16x16: ok max_abs_err 0 rel_l2 0
// CHECK: image one copy 7x9 capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: image rows 1001x517 pitch 1003 offset 3 lanes 16x16: ok max_abs_err 0 rel_l2 0
// CHECK: image rows 1001x517 pitch 1003 offset 3 lanes 32x4 capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: image rows 1001x517 pitch 1003 offset 3 one copy 7x9 one block: ok max_abs_err 0 rel_l2 0
// CHECK: image rows 1001x517 pitch 1003 offset 3 one copy 16x16 grid 5x3: ok max_abs_err 0 rel_l2 0
// CHECK: image rows 1001x517 pitch 1003 offset 3 virtual blocks 16x16 capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: image rows 7x33 pitch 9 offset 1 lanes 16x16: ok max_abs_err 0 rel_l2 0
// CHECK: image rows 7x33 pitch 9 offset 1 lanes 32x4 capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: image rows 7x33 pitch 9 offset 1 one copy 7x9 one block: ok max_abs_err 0 rel_l2 0
// CHECK: image rows 7x33 pitch 9 offset 1 one copy 16x16 grid 5x3: ok max_abs_err 0 rel_l2 0
// CHECK: image rows 7x33 pitch 9 offset 1 virtual blocks 16x16 capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: image rows 21x40 pitch 21 offset 15 lanes 16x16: ok max_abs_err 0 rel_l2 0
// CHECK: image rows 21x40 pitch 21 offset 15 lanes 32x4 capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: image rows 21x40 pitch 21 offset 15 one copy 7x9 one block: ok max_abs_err 0 rel_l2 0
// CHECK: image rows 21x40 pitch 21 offset 15 one copy 16x16 grid 5x3: ok max_abs_err 0 rel_l2 0
// CHECK: image rows 21x40 pitch 21 offset 15 virtual blocks 16x16 capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: image rows 4099x3 pitch 4111 offset 2 lanes 16x16: ok max_abs_err 0 rel_l2 0
// CHECK: image rows 4099x3 pitch 4111 offset 2 lanes 32x4 capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: image rows 4099x3 pitch 4111 offset 2 one copy 7x9 one block: ok max_abs_err 0 rel_l2 0
// CHECK: image rows 4099x3 pitch 4111 offset 2 one copy 16x16 grid 5x3: ok max_abs_err 0 rel_l2 0
// CHECK: image rows 4099x3 pitch 4111 offset 2 virtual blocks 16x16 capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: image rows 1001x77 pitch 1001 offset 3 lanes 16x16: ok max_abs_err 0 rel_l2 0
// CHECK: image rows 1001x77 pitch 1001 offset 3 lanes 32x4 capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: image rows 1001x77 pitch 1001 offset 3 one copy 7x9 one block: ok max_abs_err 0 rel_l2 0
// CHECK: image rows 1001x77 pitch 1001 offset 3 one copy 16x16 grid 5x3: ok max_abs_err 0 rel_l2 0
// CHECK: image rows 1001x77 pitch 1001 offset 3 virtual blocks 16x16 capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: maxbin block 256: ok max_abs_err 0 rel_l2 0
// CHECK: maxbin block 100: ok max_abs_err 0 rel_l2 0
// CHECK: maxbin one copy block 256: ok max_abs_err 0 rel_l2 0
// CHECK: maxbin one copy block 1024: ok max_abs_err 0 rel_l2 0
// CHECK: maxbin block 96 capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: maxbin one copy one block: ok max_abs_err 0 rel_l2 0
// CHECK: orbits block 256 original grid: ok max_abs_err 0 rel_l2 0
// CHECK: orbits block 64 one block: ok max_abs_err 0 rel_l2 0
// CHECK: orbits one copy block 256 capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: orbits one copy block 992 one block: ok max_abs_err 0 rel_l2 0
// CHECK: bytes1 vector lanes offset 0 count 1000037 original grid block 256: ok max_abs_err 0 rel_l2 0
// CHECK: bytes1 vector offset 0 count 1000037 original grid block 256: ok max_abs_err 0 rel_l2 0
// CHECK: keys16 vector lanes offset 0 count 1000037 original grid block 256: ok max_abs_err 0 rel_l2 0
// CHECK: keys16 vector offset 0 count 1000037 original grid block 256: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector lanes offset 0 count 1000037 weights offset 0 original grid block 256: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector offset 0 count 1000037 weights offset 0 original grid block 256: ok max_abs_err 0 rel_l2 0
// CHECK: bytes1 vector lanes offset 0 count 1000037 capped grid block 160: ok max_abs_err 0 rel_l2 0
// CHECK: bytes1 vector offset 0 count 1000037 capped grid block 160: ok max_abs_err 0 rel_l2 0
// CHECK: keys16 vector lanes offset 0 count 1000037 capped grid block 160: ok max_abs_err 0 rel_l2 0
// CHECK: keys16 vector offset 0 count 1000037 capped grid block 160: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector lanes offset 0 count 1000037 weights offset 0 capped grid block 160: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector offset 0 count 1000037 weights offset 0 capped grid block 160: ok max_abs_err 0 rel_l2 0
// CHECK: bytes1 vector lanes offset 0 count 1000037 one block block 1024: ok max_abs_err 0 rel_l2 0
// CHECK: bytes1 vector offset 0 count 1000037 one block block 1024: ok max_abs_err 0 rel_l2 0
// CHECK: keys16 vector lanes offset 0 count 1000037 one block block 1024: ok max_abs_err 0 rel_l2 0
// CHECK: keys16 vector offset 0 count 1000037 one block block 1024: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector lanes offset 0 count 1000037 weights offset 0 one block block 1024: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector offset 0 count 1000037 weights offset 0 one block block 1024: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector lanes offset 0 count 1000037 weights offset 1 original grid block 256: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector offset 0 count 1000037 weights offset 1 original grid block 256: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector lanes offset 0 count 1000037 weights offset 1 capped grid block 160: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector offset 0 count 1000037 weights offset 1 capped grid block 160: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector lanes offset 0 count 1000037 weights offset 1 one block block 1024: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector offset 0 count 1000037 weights offset 1 one block block 1024: ok max_abs_err 0 rel_l2 0
// CHECK: bytes1 vector lanes offset 0 count 4099 original grid block 256: ok max_abs_err 0 rel_l2 0
// CHECK: bytes1 vector offset 0 count 4099 original grid block 256: ok max_abs_err 0 rel_l2 0
// CHECK: keys16 vector lanes offset 0 count 4099 original grid block 256: ok max_abs_err 0 rel_l2 0
// CHECK: keys16 vector offset 0 count 4099 original grid block 256: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector lanes offset 0 count 4099 weights offset 0 original grid block 256: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector offset 0 count 4099 weights offset 0 original grid block 256: ok max_abs_err 0 rel_l2 0
// CHECK: bytes1 vector lanes offset 0 count 4099 capped grid block 160: ok max_abs_err 0 rel_l2 0
// CHECK: bytes1 vector offset 0 count 4099 capped grid block 160: ok max_abs_err 0 rel_l2 0
// CHECK: keys16 vector lanes offset 0 count 4099 capped grid block 160: ok max_abs_err 0 rel_l2 0
// CHECK: keys16 vector offset 0 count 4099 capped grid block 160: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector lanes offset 0 count 4099 weights offset 0 capped grid block 160: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector offset 0 count 4099 weights offset 0 capped grid block 160: ok max_abs_err 0 rel_l2 0
// CHECK: bytes1 vector lanes offset 0 count 4099 one block block 1024: ok max_abs_err 0 rel_l2 0
// CHECK: bytes1 vector offset 0 count 4099 one block block 1024: ok max_abs_err 0 rel_l2 0
// CHECK: keys16 vector lanes offset 0 count 4099 one block block 1024: ok max_abs_err 0 rel_l2 0
// CHECK: keys16 vector offset 0 count 4099 one block block 1024: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector lanes offset 0 count 4099 weights offset 0 one block block 1024: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector offset 0 count 4099 weights offset 0 one block block 1024: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector lanes offset 0 count 4099 weights offset 1 original grid block 256: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector offset 0 count 4099 weights offset 1 original grid block 256: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector lanes offset 0 count 4099 weights offset 1 capped grid block 160: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector offset 0 count 4099 weights offset 1 capped grid block 160: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector lanes offset 0 count 4099 weights offset 1 one block block 1024: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector offset 0 count 4099 weights offset 1 one block block 1024: ok max_abs_err 0 rel_l2 0
// CHECK: bytes1 vector lanes offset 0 count 7 original grid block 256: ok max_abs_err 0 rel_l2 0
// CHECK: bytes1 vector offset 0 count 7 original grid block 256: ok max_abs_err 0 rel_l2 0
// CHECK: keys16 vector lanes offset 0 count 7 original grid block 256: ok max_abs_err 0 rel_l2 0
// CHECK: keys16 vector offset 0 count 7 original grid block 256: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector lanes offset 0 count 7 weights offset 0 original grid block 256: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector offset 0 count 7 weights offset 0 original grid block 256: ok max_abs_err 0 rel_l2 0
// CHECK: bytes1 vector lanes offset 0 count 7 capped grid block 160: ok max_abs_err 0 rel_l2 0
// CHECK: bytes1 vector offset 0 count 7 capped grid block 160: ok max_abs_err 0 rel_l2 0
// CHECK: keys16 vector lanes offset 0 count 7 capped grid block 160: ok max_abs_err 0 rel_l2 0
// CHECK: keys16 vector offset 0 count 7 capped grid block 160: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector lanes offset 0 count 7 weights offset 0 capped grid block 160: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector offset 0 count 7 weights offset 0 capped grid block 160: ok max_abs_err 0 rel_l2 0
// CHECK: bytes1 vector lanes offset 0 count 7 one block block 1024: ok max_abs_err 0 rel_l2 0
// CHECK: bytes1 vector offset 0 count 7 one block block 1024: ok max_abs_err 0 rel_l2 0
// CHECK: keys16 vector lanes offset 0 count 7 one block block 1024: ok max_abs_err 0 rel_l2 0
// CHECK: keys16 vector offset 0 count 7 one block block 1024: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector lanes offset 0 count 7 weights offset 0 one block block 1024: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector offset 0 count 7 weights offset 0 one block block 1024: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector lanes offset 0 count 7 weights offset 1 original grid block 256: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector offset 0 count 7 weights offset 1 original grid block 256: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector lanes offset 0 count 7 weights offset 1 capped grid block 160: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector offset 0 count 7 weights offset 1 capped grid block 160: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector lanes offset 0 count 7 weights offset 1 one block block 1024: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector offset 0 count 7 weights offset 1 one block block 1024: ok max_abs_err 0 rel_l2 0
// CHECK: bytes1 vector lanes offset 0 count 1 original grid block 256: ok max_abs_err 0 rel_l2 0
// CHECK: bytes1 vector offset 0 count 1 original grid block 256: ok max_abs_err 0 rel_l2 0
// CHECK: keys16 vector lanes offset 0 count 1 original grid block 256: ok max_abs_err 0 rel_l2 0
// CHECK: keys16 vector offset 0 count 1 original grid block 256: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector lanes offset 0 count 1 weights offset 0 original grid block 256: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector offset 0 count 1 weights offset 0 original grid block 256: ok max_abs_err 0 rel_l2 0
// CHECK: bytes1 vector lanes offset 0 count 1 capped grid block 160: ok max_abs_err 0 rel_l2 0
// CHECK: bytes1 vector offset 0 count 1 capped grid block 160: ok max_abs_err 0 rel_l2 0
// CHECK: keys16 vector lanes offset 0 count 1 capped grid block 160: ok max_abs_err 0 rel_l2 0
// CHECK: keys16 vector offset 0 count 1 capped grid block 160: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector lanes offset 0 count 1 weights offset 0 capped grid block 160: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector offset 0 count 1 weights offset 0 capped grid block 160: ok max_abs_err 0 rel_l2 0
// CHECK: bytes1 vector lanes offset 0 count 1 one block block 1024: ok max_abs_err 0 rel_l2 0
// CHECK: bytes1 vector offset 0 count 1 one block block 1024: ok max_abs_err 0 rel_l2 0
// CHECK: keys16 vector lanes offset 0 count 1 one block block 1024: ok max_abs_err 0 rel_l2 0
// CHECK: keys16 vector offset 0 count 1 one block block 1024: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector lanes offset 0 count 1 weights offset 0 one block block 1024: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector offset 0 count 1 weights offset 0 one block block 1024: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector lanes offset 0 count 1 weights offset 1 original grid block 256: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector offset 0 count 1 weights offset 1 original grid block 256: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector lanes offset 0 count 1 weights offset 1 capped grid block 160: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector offset 0 count 1 weights offset 1 capped grid block 160: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector lanes offset 0 count 1 weights offset 1 one block block 1024: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector offset 0 count 1 weights offset 1 one block block 1024: ok max_abs_err 0 rel_l2 0
// CHECK: bytes1 vector lanes offset 1 count 1000036 original grid block 256: ok max_abs_err 0 rel_l2 0
// CHECK: bytes1 vector offset 1 count 1000036 original grid block 256: ok max_abs_err 0 rel_l2 0
// CHECK: keys16 vector lanes offset 1 count 1000036 original grid block 256: ok max_abs_err 0 rel_l2 0
// CHECK: keys16 vector offset 1 count 1000036 original grid block 256: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector lanes offset 1 count 1000036 weights offset 1 original grid block 256: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector offset 1 count 1000036 weights offset 1 original grid block 256: ok max_abs_err 0 rel_l2 0
// CHECK: bytes1 vector lanes offset 1 count 1000036 capped grid block 160: ok max_abs_err 0 rel_l2 0
// CHECK: bytes1 vector offset 1 count 1000036 capped grid block 160: ok max_abs_err 0 rel_l2 0
// CHECK: keys16 vector lanes offset 1 count 1000036 capped grid block 160: ok max_abs_err 0 rel_l2 0
// CHECK: keys16 vector offset 1 count 1000036 capped grid block 160: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector lanes offset 1 count 1000036 weights offset 1 capped grid block 160: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector offset 1 count 1000036 weights offset 1 capped grid block 160: ok max_abs_err 0 rel_l2 0
// CHECK: bytes1 vector lanes offset 1 count 1000036 one block block 1024: ok max_abs_err 0 rel_l2 0
// CHECK: bytes1 vector offset 1 count 1000036 one block block 1024: ok max_abs_err 0 rel_l2 0
// CHECK: keys16 vector lanes offset 1 count 1000036 one block block 1024: ok max_abs_err 0 rel_l2 0
// CHECK: keys16 vector offset 1 count 1000036 one block block 1024: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector lanes offset 1 count 1000036 weights offset 1 one block block 1024: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector offset 1 count 1000036 weights offset 1 one block block 1024: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector lanes offset 1 count 1000036 weights offset 2 original grid block 256: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector offset 1 count 1000036 weights offset 2 original grid block 256: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector lanes offset 1 count 1000036 weights offset 2 capped grid block 160: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector offset 1 count 1000036 weights offset 2 capped grid block 160: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector lanes offset 1 count 1000036 weights offset 2 one block block 1024: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector offset 1 count 1000036 weights offset 2 one block block 1024: ok max_abs_err 0 rel_l2 0
// CHECK: bytes1 vector lanes offset 1 count 4099 original grid block 256: ok max_abs_err 0 rel_l2 0
// CHECK: bytes1 vector offset 1 count 4099 original grid block 256: ok max_abs_err 0 rel_l2 0
// CHECK: keys16 vector lanes offset 1 count 4099 original grid block 256: ok max_abs_err 0 rel_l2 0
// CHECK: keys16 vector offset 1 count 4099 original grid block 256: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector lanes offset 1 count 4099 weights offset 1 original grid block 256: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector offset 1 count 4099 weights offset 1 original grid block 256: ok max_abs_err 0 rel_l2 0
// CHECK: bytes1 vector lanes offset 1 count 4099 capped grid block 160: ok max_abs_err 0 rel_l2 0
// CHECK: bytes1 vector offset 1 count 4099 capped grid block 160: ok max_abs_err 0 rel_l2 0
// CHECK: keys16 vector lanes offset 1 count 4099 capped grid block 160: ok max_abs_err 0 rel_l2 0
// CHECK: keys16 vector offset 1 count 4099 capped grid block 160: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector lanes offset 1 count 4099 weights offset 1 capped grid block 160: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector offset 1 count 4099 weights offset 1 capped grid block 160: ok max_abs_err 0 rel_l2 0
// CHECK: bytes1 vector lanes offset 1 count 4099 one block block 1024: ok max_abs_err 0 rel_l2 0
// CHECK: bytes1 vector offset 1 count 4099 one block block 1024: ok max_abs_err 0 rel_l2 0
// CHECK: keys16 vector lanes offset 1 count 4099 one block block 1024: ok max_abs_err 0 rel_l2 0
// CHECK: keys16 vector offset 1 count 4099 one block block 1024: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector lanes offset 1 count 4099 weights offset 1 one block block 1024: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector offset 1 count 4099 weights offset 1 one block block 1024: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector lanes offset 1 count 4099 weights offset 2 original grid block 256: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector offset 1 count 4099 weights offset 2 original grid block 256: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector lanes offset 1 count 4099 weights offset 2 capped grid block 160: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector offset 1 count 4099 weights offset 2 capped grid block 160: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector lanes offset 1 count 4099 weights offset 2 one block block 1024: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector offset 1 count 4099 weights offset 2 one block block 1024: ok max_abs_err 0 rel_l2 0
// CHECK: bytes1 vector lanes offset 1 count 7 original grid block 256: ok max_abs_err 0 rel_l2 0
// CHECK: bytes1 vector offset 1 count 7 original grid block 256: ok max_abs_err 0 rel_l2 0
// CHECK: keys16 vector lanes offset 1 count 7 original grid block 256: ok max_abs_err 0 rel_l2 0
// CHECK: keys16 vector offset 1 count 7 original grid block 256: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector lanes offset 1 count 7 weights offset 1 original grid block 256: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector offset 1 count 7 weights offset 1 original grid block 256: ok max_abs_err 0 rel_l2 0
// CHECK: bytes1 vector lanes offset 1 count 7 capped grid block 160: ok max_abs_err 0 rel_l2 0
// CHECK: bytes1 vector offset 1 count 7 capped grid block 160: ok max_abs_err 0 rel_l2 0
// CHECK: keys16 vector lanes offset 1 count 7 capped grid block 160: ok max_abs_err 0 rel_l2 0
// CHECK: keys16 vector offset 1 count 7 capped grid block 160: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector lanes offset 1 count 7 weights offset 1 capped grid block 160: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector offset 1 count 7 weights offset 1 capped grid block 160: ok max_abs_err 0 rel_l2 0
// CHECK: bytes1 vector lanes offset 1 count 7 one block block 1024: ok max_abs_err 0 rel_l2 0
// CHECK: bytes1 vector offset 1 count 7 one block block 1024: ok max_abs_err 0 rel_l2 0
// CHECK: keys16 vector lanes offset 1 count 7 one block block 1024: ok max_abs_err 0 rel_l2 0
// CHECK: keys16 vector offset 1 count 7 one block block 1024: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector lanes offset 1 count 7 weights offset 1 one block block 1024: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector offset 1 count 7 weights offset 1 one block block 1024: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector lanes offset 1 count 7 weights offset 2 original grid block 256: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector offset 1 count 7 weights offset 2 original grid block 256: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector lanes offset 1 count 7 weights offset 2 capped grid block 160: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector offset 1 count 7 weights offset 2 capped grid block 160: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector lanes offset 1 count 7 weights offset 2 one block block 1024: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector offset 1 count 7 weights offset 2 one block block 1024: ok max_abs_err 0 rel_l2 0
// CHECK: bytes1 vector lanes offset 1 count 1 original grid block 256: ok max_abs_err 0 rel_l2 0
// CHECK: bytes1 vector offset 1 count 1 original grid block 256: ok max_abs_err 0 rel_l2 0
// CHECK: keys16 vector lanes offset 1 count 1 original grid block 256: ok max_abs_err 0 rel_l2 0
// CHECK: keys16 vector offset 1 count 1 original grid block 256: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector lanes offset 1 count 1 weights offset 1 original grid block 256: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector offset 1 count 1 weights offset 1 original grid block 256: ok max_abs_err 0 rel_l2 0
// CHECK: bytes1 vector lanes offset 1 count 1 capped grid block 160: ok max_abs_err 0 rel_l2 0
// CHECK: bytes1 vector offset 1 count 1 capped grid block 160: ok max_abs_err 0 rel_l2 0
// CHECK: keys16 vector lanes offset 1 count 1 capped grid block 160: ok max_abs_err 0 rel_l2 0
// CHECK: keys16 vector offset 1 count 1 capped grid block 160: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector lanes offset 1 count 1 weights offset 1 capped grid block 160: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector offset 1 count 1 weights offset 1 capped grid block 160: ok max_abs_err 0 rel_l2 0
// CHECK: bytes1 vector lanes offset 1 count 1 one block block 1024: ok max_abs_err 0 rel_l2 0
// CHECK: bytes1 vector offset 1 count 1 one block block 1024: ok max_abs_err 0 rel_l2 0
// CHECK: keys16 vector lanes offset 1 count 1 one block block 1024: ok max_abs_err 0 rel_l2 0
// CHECK: keys16 vector offset 1 count 1 one block block 1024: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector lanes offset 1 count 1 weights offset 1 one block block 1024: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector offset 1 count 1 weights offset 1 one block block 1024: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector lanes offset 1 count 1 weights offset 2 original grid block 256: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector offset 1 count 1 weights offset 2 original grid block 256: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector lanes offset 1 count 1 weights offset 2 capped grid block 160: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector offset 1 count 1 weights offset 2 capped grid block 160: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector lanes offset 1 count 1 weights offset 2 one block block 1024: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector offset 1 count 1 weights offset 2 one block block 1024: ok max_abs_err 0 rel_l2 0
// CHECK: bytes1 vector lanes offset 2 count 1000035 original grid block 256: ok max_abs_err 0 rel_l2 0
// CHECK: bytes1 vector offset 2 count 1000035 original grid block 256: ok max_abs_err 0 rel_l2 0
// CHECK: keys16 vector lanes offset 2 count 1000035 original grid block 256: ok max_abs_err 0 rel_l2 0
// CHECK: keys16 vector offset 2 count 1000035 original grid block 256: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector lanes offset 2 count 1000035 weights offset 2 original grid block 256: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector offset 2 count 1000035 weights offset 2 original grid block 256: ok max_abs_err 0 rel_l2 0
// CHECK: bytes1 vector lanes offset 2 count 1000035 capped grid block 160: ok max_abs_err 0 rel_l2 0
// CHECK: bytes1 vector offset 2 count 1000035 capped grid block 160: ok max_abs_err 0 rel_l2 0
// CHECK: keys16 vector lanes offset 2 count 1000035 capped grid block 160: ok max_abs_err 0 rel_l2 0
// CHECK: keys16 vector offset 2 count 1000035 capped grid block 160: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector lanes offset 2 count 1000035 weights offset 2 capped grid block 160: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector offset 2 count 1000035 weights offset 2 capped grid block 160: ok max_abs_err 0 rel_l2 0
// CHECK: bytes1 vector lanes offset 2 count 1000035 one block block 1024: ok max_abs_err 0 rel_l2 0
// CHECK: bytes1 vector offset 2 count 1000035 one block block 1024: ok max_abs_err 0 rel_l2 0
// CHECK: keys16 vector lanes offset 2 count 1000035 one block block 1024: ok max_abs_err 0 rel_l2 0
// CHECK: keys16 vector offset 2 count 1000035 one block block 1024: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector lanes offset 2 count 1000035 weights offset 2 one block block 1024: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector offset 2 count 1000035 weights offset 2 one block block 1024: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector lanes offset 2 count 1000035 weights offset 3 original grid block 256: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector offset 2 count 1000035 weights offset 3 original grid block 256: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector lanes offset 2 count 1000035 weights offset 3 capped grid block 160: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector offset 2 count 1000035 weights offset 3 capped grid block 160: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector lanes offset 2 count 1000035 weights offset 3 one block block 1024: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector offset 2 count 1000035 weights offset 3 one block block 1024: ok max_abs_err 0 rel_l2 0
// CHECK: bytes1 vector lanes offset 2 count 4099 original grid block 256: ok max_abs_err 0 rel_l2 0
// CHECK: bytes1 vector offset 2 count 4099 original grid block 256: ok max_abs_err 0 rel_l2 0
// CHECK: keys16 vector lanes offset 2 count 4099 original grid block 256: ok max_abs_err 0 rel_l2 0
// CHECK: keys16 vector offset 2 count 4099 original grid block 256: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector lanes offset 2 count 4099 weights offset 2 original grid block 256: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector offset 2 count 4099 weights offset 2 original grid block 256: ok max_abs_err 0 rel_l2 0
// CHECK: bytes1 vector lanes offset 2 count 4099 capped grid block 160: ok max_abs_err 0 rel_l2 0
// CHECK: bytes1 vector offset 2 count 4099 capped grid block 160: ok max_abs_err 0 rel_l2 0
// CHECK: keys16 vector lanes offset 2 count 4099 capped grid block 160: ok max_abs_err 0 rel_l2 0
// CHECK: keys16 vector offset 2 count 4099 capped grid block 160: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector lanes offset 2 count 4099 weights offset 2 capped grid block 160: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector offset 2 count 4099 weights offset 2 capped grid block 160: ok max_abs_err 0 rel_l2 0
// CHECK: bytes1 vector lanes offset 2 count 4099 one block block 1024: ok max_abs_err 0 rel_l2 0
// CHECK: bytes1 vector offset 2 count 4099 one block block 1024: ok max_abs_err 0 rel_l2 0
// CHECK: keys16 vector lanes offset 2 count 4099 one block block 1024: ok max_abs_err 0 rel_l2 0
// CHECK: keys16 vector offset 2 count 4099 one block block 1024: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector lanes offset 2 count 4099 weights offset 2 one block block 1024: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector offset 2 count 4099 weights offset 2 one block block 1024: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector lanes offset 2 count 4099 weights offset 3 original grid block 256: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector offset 2 count 4099 weights offset 3 original grid block 256: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector lanes offset 2 count 4099 weights offset 3 capped grid block 160: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector offset 2 count 4099 weights offset 3 capped grid block 160: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector lanes offset 2 count 4099 weights offset 3 one block block 1024: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector offset 2 count 4099 weights offset 3 one block block 1024: ok max_abs_err 0 rel_l2 0
// CHECK: bytes1 vector lanes offset 2 count 7 original grid block 256: ok max_abs_err 0 rel_l2 0
// CHECK: bytes1 vector offset 2 count 7 original grid block 256: ok max_abs_err 0 rel_l2 0
// CHECK: keys16 vector lanes offset 2 count 7 original grid block 256: ok max_abs_err 0 rel_l2 0
// CHECK: keys16 vector offset 2 count 7 original grid block 256: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector lanes offset 2 count 7 weights offset 2 original grid block 256: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector offset 2 count 7 weights offset 2 original grid block 256: ok max_abs_err 0 rel_l2 0
// CHECK: bytes1 vector lanes offset 2 count 7 capped grid block 160: ok max_abs_err 0 rel_l2 0
// CHECK: bytes1 vector offset 2 count 7 capped grid block 160: ok max_abs_err 0 rel_l2 0
// CHECK: keys16 vector lanes offset 2 count 7 capped grid block 160: ok max_abs_err 0 rel_l2 0
// CHECK: keys16 vector offset 2 count 7 capped grid block 160: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector lanes offset 2 count 7 weights offset 2 capped grid block 160: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector offset 2 count 7 weights offset 2 capped grid block 160: ok max_abs_err 0 rel_l2 0
// CHECK: bytes1 vector lanes offset 2 count 7 one block block 1024: ok max_abs_err 0 rel_l2 0
// CHECK: bytes1 vector offset 2 count 7 one block block 1024: ok max_abs_err 0 rel_l2 0
// CHECK: keys16 vector lanes offset 2 count 7 one block block 1024: ok max_abs_err 0 rel_l2 0
// CHECK: keys16 vector offset 2 count 7 one block block 1024: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector lanes offset 2 count 7 weights offset 2 one block block 1024: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector offset 2 count 7 weights offset 2 one block block 1024: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector lanes offset 2 count 7 weights offset 3 original grid block 256: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector offset 2 count 7 weights offset 3 original grid block 256: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector lanes offset 2 count 7 weights offset 3 capped grid block 160: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector offset 2 count 7 weights offset 3 capped grid block 160: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector lanes offset 2 count 7 weights offset 3 one block block 1024: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector offset 2 count 7 weights offset 3 one block block 1024: ok max_abs_err 0 rel_l2 0
// CHECK: bytes1 vector lanes offset 2 count 1 original grid block 256: ok max_abs_err 0 rel_l2 0
// CHECK: bytes1 vector offset 2 count 1 original grid block 256: ok max_abs_err 0 rel_l2 0
// CHECK: keys16 vector lanes offset 2 count 1 original grid block 256: ok max_abs_err 0 rel_l2 0
// CHECK: keys16 vector offset 2 count 1 original grid block 256: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector lanes offset 2 count 1 weights offset 2 original grid block 256: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector offset 2 count 1 weights offset 2 original grid block 256: ok max_abs_err 0 rel_l2 0
// CHECK: bytes1 vector lanes offset 2 count 1 capped grid block 160: ok max_abs_err 0 rel_l2 0
// CHECK: bytes1 vector offset 2 count 1 capped grid block 160: ok max_abs_err 0 rel_l2 0
// CHECK: keys16 vector lanes offset 2 count 1 capped grid block 160: ok max_abs_err 0 rel_l2 0
// CHECK: keys16 vector offset 2 count 1 capped grid block 160: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector lanes offset 2 count 1 weights offset 2 capped grid block 160: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector offset 2 count 1 weights offset 2 capped grid block 160: ok max_abs_err 0 rel_l2 0
// CHECK: bytes1 vector lanes offset 2 count 1 one block block 1024: ok max_abs_err 0 rel_l2 0
// CHECK: bytes1 vector offset 2 count 1 one block block 1024: ok max_abs_err 0 rel_l2 0
// CHECK: keys16 vector lanes offset 2 count 1 one block block 1024: ok max_abs_err 0 rel_l2 0
// CHECK: keys16 vector offset 2 count 1 one block block 1024: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector lanes offset 2 count 1 weights offset 2 one block block 1024: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector offset 2 count 1 weights offset 2 one block block 1024: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector lanes offset 2 count 1 weights offset 3 original grid block 256: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector offset 2 count 1 weights offset 3 original grid block 256: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector lanes offset 2 count 1 weights offset 3 capped grid block 160: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector offset 2 count 1 weights offset 3 capped grid block 160: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector lanes offset 2 count 1 weights offset 3 one block block 1024: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector offset 2 count 1 weights offset 3 one block block 1024: ok max_abs_err 0 rel_l2 0
// CHECK: bytes1 vector lanes offset 3 count 1000034 original grid block 256: ok max_abs_err 0 rel_l2 0
// CHECK: bytes1 vector offset 3 count 1000034 original grid block 256: ok max_abs_err 0 rel_l2 0
// CHECK: keys16 vector lanes offset 3 count 1000034 original grid block 256: ok max_abs_err 0 rel_l2 0
// CHECK: keys16 vector offset 3 count 1000034 original grid block 256: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector lanes offset 3 count 1000034 weights offset 3 original grid block 256: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector offset 3 count 1000034 weights offset 3 original grid block 256: ok max_abs_err 0 rel_l2 0
// CHECK: bytes1 vector lanes offset 3 count 1000034 capped grid block 160: ok max_abs_err 0 rel_l2 0
// CHECK: bytes1 vector offset 3 count 1000034 capped grid block 160: ok max_abs_err 0 rel_l2 0
// CHECK: keys16 vector lanes offset 3 count 1000034 capped grid block 160: ok max_abs_err 0 rel_l2 0
// CHECK: keys16 vector offset 3 count 1000034 capped grid block 160: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector lanes offset 3 count 1000034 weights offset 3 capped grid block 160: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector offset 3 count 1000034 weights offset 3 capped grid block 160: ok max_abs_err 0 rel_l2 0
// CHECK: bytes1 vector lanes offset 3 count 1000034 one block block 1024: ok max_abs_err 0 rel_l2 0
// CHECK: bytes1 vector offset 3 count 1000034 one block block 1024: ok max_abs_err 0 rel_l2 0
// CHECK: keys16 vector lanes offset 3 count 1000034 one block block 1024: ok max_abs_err 0 rel_l2 0
// CHECK: keys16 vector offset 3 count 1000034 one block block 1024: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector lanes offset 3 count 1000034 weights offset 3 one block block 1024: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector offset 3 count 1000034 weights offset 3 one block block 1024: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector lanes offset 3 count 1000034 weights offset 4 original grid block 256: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector offset 3 count 1000034 weights offset 4 original grid block 256: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector lanes offset 3 count 1000034 weights offset 4 capped grid block 160: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector offset 3 count 1000034 weights offset 4 capped grid block 160: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector lanes offset 3 count 1000034 weights offset 4 one block block 1024: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector offset 3 count 1000034 weights offset 4 one block block 1024: ok max_abs_err 0 rel_l2 0
// CHECK: bytes1 vector lanes offset 3 count 4099 original grid block 256: ok max_abs_err 0 rel_l2 0
// CHECK: bytes1 vector offset 3 count 4099 original grid block 256: ok max_abs_err 0 rel_l2 0
// CHECK: keys16 vector lanes offset 3 count 4099 original grid block 256: ok max_abs_err 0 rel_l2 0
// CHECK: keys16 vector offset 3 count 4099 original grid block 256: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector lanes offset 3 count 4099 weights offset 3 original grid block 256: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector offset 3 count 4099 weights offset 3 original grid block 256: ok max_abs_err 0 rel_l2 0
// CHECK: bytes1 vector lanes offset 3 count 4099 capped grid block 160: ok max_abs_err 0 rel_l2 0
// CHECK: bytes1 vector offset 3 count 4099 capped grid block 160: ok max_abs_err 0 rel_l2 0
// CHECK: keys16 vector lanes offset 3 count 4099 capped grid block 160: ok max_abs_err 0 rel_l2 0
// CHECK: keys16 vector offset 3 count 4099 capped grid block 160: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector lanes offset 3 count 4099 weights offset 3 capped grid block 160: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector offset 3 count 4099 weights offset 3 capped grid block 160: ok max_abs_err 0 rel_l2 0
// CHECK: bytes1 vector lanes offset 3 count 4099 one block block 1024: ok max_abs_err 0 rel_l2 0
// CHECK: bytes1 vector offset 3 count 4099 one block block 1024: ok max_abs_err 0 rel_l2 0
// CHECK: keys16 vector lanes offset 3 count 4099 one block block 1024: ok max_abs_err 0 rel_l2 0
// CHECK: keys16 vector offset 3 count 4099 one block block 1024: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector lanes offset 3 count 4099 weights offset 3 one block block 1024: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector offset 3 count 4099 weights offset 3 one block block 1024: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector lanes offset 3 count 4099 weights offset 4 original grid block 256: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector offset 3 count 4099 weights offset 4 original grid block 256: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector lanes offset 3 count 4099 weights offset 4 capped grid block 160: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector offset 3 count 4099 weights offset 4 capped grid block 160: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector lanes offset 3 count 4099 weights offset 4 one block block 1024: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector offset 3 count 4099 weights offset 4 one block block 1024: ok max_abs_err 0 rel_l2 0
// CHECK: bytes1 vector lanes offset 3 count 7 original grid block 256: ok max_abs_err 0 rel_l2 0
// CHECK: bytes1 vector offset 3 count 7 original grid block 256: ok max_abs_err 0 rel_l2 0
// CHECK: keys16 vector lanes offset 3 count 7 original grid block 256: ok max_abs_err 0 rel_l2 0
// CHECK: keys16 vector offset 3 count 7 original grid block 256: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector lanes offset 3 count 7 weights offset 3 original grid block 256: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector offset 3 count 7 weights offset 3 original grid block 256: ok max_abs_err 0 rel_l2 0
// CHECK: bytes1 vector lanes offset 3 count 7 capped grid block 160: ok max_abs_err 0 rel_l2 0
// CHECK: bytes1 vector offset 3 count 7 capped grid block 160: ok max_abs_err 0 rel_l2 0
// CHECK: keys16 vector lanes offset 3 count 7 capped grid block 160: ok max_abs_err 0 rel_l2 0
// CHECK: keys16 vector offset 3 count 7 capped grid block 160: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector lanes offset 3 count 7 weights offset 3 capped grid block 160: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector offset 3 count 7 weights offset 3 capped grid block 160: ok max_abs_err 0 rel_l2 0
// CHECK: bytes1 vector lanes offset 3 count 7 one block block 1024: ok max_abs_err 0 rel_l2 0
// CHECK: bytes1 vector offset 3 count 7 one block block 1024: ok max_abs_err 0 rel_l2 0
// CHECK: keys16 vector lanes offset 3 count 7 one block block 1024: ok max_abs_err 0 rel_l2 0
// CHECK: keys16 vector offset 3 count 7 one block block 1024: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector lanes offset 3 count 7 weights offset 3 one block block 1024: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector offset 3 count 7 weights offset 3 one block block 1024: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector lanes offset 3 count 7 weights offset 4 original grid block 256: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector offset 3 count 7 weights offset 4 original grid block 256: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector lanes offset 3 count 7 weights offset 4 capped grid block 160: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector offset 3 count 7 weights offset 4 capped grid block 160: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector lanes offset 3 count 7 weights offset 4 one block block 1024: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector offset 3 count 7 weights offset 4 one block block 1024: ok max_abs_err 0 rel_l2 0
// CHECK: bytes1 vector lanes offset 3 count 1 original grid block 256: ok max_abs_err 0 rel_l2 0
// CHECK: bytes1 vector offset 3 count 1 original grid block 256: ok max_abs_err 0 rel_l2 0
// CHECK: keys16 vector lanes offset 3 count 1 original grid block 256: ok max_abs_err 0 rel_l2 0
// CHECK: keys16 vector offset 3 count 1 original grid block 256: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector lanes offset 3 count 1 weights offset 3 original grid block 256: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector offset 3 count 1 weights offset 3 original grid block 256: ok max_abs_err 0 rel_l2 0
// CHECK: bytes1 vector lanes offset 3 count 1 capped grid block 160: ok max_abs_err 0 rel_l2 0
// CHECK: bytes1 vector offset 3 count 1 capped grid block 160: ok max_abs_err 0 rel_l2 0
// CHECK: keys16 vector lanes offset 3 count 1 capped grid block 160: ok max_abs_err 0 rel_l2 0
// CHECK: keys16 vector offset 3 count 1 capped grid block 160: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector lanes offset 3 count 1 weights offset 3 capped grid block 160: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector offset 3 count 1 weights offset 3 capped grid block 160: ok max_abs_err 0 rel_l2 0
// CHECK: bytes1 vector lanes offset 3 count 1 one block block 1024: ok max_abs_err 0 rel_l2 0
// CHECK: bytes1 vector offset 3 count 1 one block block 1024: ok max_abs_err 0 rel_l2 0
// CHECK: keys16 vector lanes offset 3 count 1 one block block 1024: ok max_abs_err 0 rel_l2 0
// CHECK: keys16 vector offset 3 count 1 one block block 1024: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector lanes offset 3 count 1 weights offset 3 one block block 1024: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector offset 3 count 1 weights offset 3 one block block 1024: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector lanes offset 3 count 1 weights offset 4 original grid block 256: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector offset 3 count 1 weights offset 4 original grid block 256: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector lanes offset 3 count 1 weights offset 4 capped grid block 160: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector offset 3 count 1 weights offset 4 capped grid block 160: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector lanes offset 3 count 1 weights offset 4 one block block 1024: ok max_abs_err 0 rel_l2 0
// CHECK: wbytes vector offset 3 count 1 weights offset 4 one block block 1024: ok max_abs_err 0 rel_l2 0
// CHECK: ifclamp block 256 original grid: ok max_abs_err 0 rel_l2 0
// CHECK: ifclamp block 96 capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: letters block 256 original grid: ok max_abs_err 0 rel_l2 0
// CHECK: letters block 160 capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: joint block 256 original grid: ok max_abs_err 0 rel_l2 0
// CHECK: joint block 128 capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: joint one block: ok max_abs_err 0 rel_l2 0
// CHECK: image16 1001x77 pitch 1003 offset 3 16x16: ok max_abs_err 0 rel_l2 0
// CHECK: image16 1001x77 pitch 1003 offset 3 32x4 capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: image16 1001x77 pitch 1003 offset 3 7x9 one block: ok max_abs_err 0 rel_l2 0
// CHECK: image16 13x5 pitch 13 offset 1 16x16: ok max_abs_err 0 rel_l2 0
// CHECK: image16 13x5 pitch 13 offset 1 32x4 capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: image16 13x5 pitch 13 offset 1 7x9 one block: ok max_abs_err 0 rel_l2 0
// CHECK: clamp_ternary nbins 100 block 256 original grid: ok max_abs_err 0 rel_l2 0
// CHECK: clamp_ternary nbins 100 block 96 capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: clamp_ternary nbins 100 block 1024 one block: ok max_abs_err 0 rel_l2 0
// CHECK: clamp_ternary one copy nbins 100 block 128 capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: clamp_ternary one copy nbins 100 block 256 one block: ok max_abs_err 0 rel_l2 0
// CHECK: clamp_ternary nbins 1 block 256 original grid: ok max_abs_err 0 rel_l2 0
// CHECK: clamp_ternary nbins 1 block 96 capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: clamp_ternary nbins 1 block 1024 one block: ok max_abs_err 0 rel_l2 0
// CHECK: clamp_ternary one copy nbins 1 block 128 capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: clamp_ternary one copy nbins 1 block 256 one block: ok max_abs_err 0 rel_l2 0
// CHECK: clamp_ternary nbins 12288 block 256 original grid: ok max_abs_err 0 rel_l2 0
// CHECK: clamp_ternary nbins 12288 block 96 capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: clamp_ternary nbins 12288 block 1024 one block: ok max_abs_err 0 rel_l2 0
// CHECK: clamp_ternary one copy nbins 12288 block 128 capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: clamp_ternary one copy nbins 12288 block 256 one block: ok max_abs_err 0 rel_l2 0
// CHECK: clamp_ternary nbins 7 offset 0 count 4099 block 96 capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: clamp_ternary nbins 7 offset 0 count 7 block 96 capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: clamp_ternary nbins 7 offset 0 count 1 block 96 capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: clamp_ternary nbins 7 offset 1 count 4099 block 96 capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: clamp_ternary nbins 7 offset 1 count 7 block 96 capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: clamp_ternary nbins 7 offset 1 count 1 block 96 capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: clamp_ternary nbins 7 offset 2 count 4099 block 96 capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: clamp_ternary nbins 7 offset 2 count 7 block 96 capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: clamp_ternary nbins 7 offset 2 count 1 block 96 capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: clamp_ternary nbins 7 offset 3 count 4099 block 96 capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: clamp_ternary nbins 7 offset 3 count 7 block 96 capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: clamp_ternary nbins 7 offset 3 count 1 block 96 capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: clamp_ifelse nbins 100 block 256 original grid: ok max_abs_err 0 rel_l2 0
// CHECK: clamp_ifelse nbins 100 block 96 capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: clamp_ifelse nbins 100 block 1024 one block: ok max_abs_err 0 rel_l2 0
// CHECK: clamp_ifelse one copy nbins 100 block 128 capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: clamp_ifelse one copy nbins 100 block 256 one block: ok max_abs_err 0 rel_l2 0
// CHECK: clamp_ifelse nbins 1 block 256 original grid: ok max_abs_err 0 rel_l2 0
// CHECK: clamp_ifelse nbins 1 block 96 capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: clamp_ifelse nbins 1 block 1024 one block: ok max_abs_err 0 rel_l2 0
// CHECK: clamp_ifelse one copy nbins 1 block 128 capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: clamp_ifelse one copy nbins 1 block 256 one block: ok max_abs_err 0 rel_l2 0
// CHECK: clamp_ifelse nbins 12288 block 256 original grid: ok max_abs_err 0 rel_l2 0
// CHECK: clamp_ifelse nbins 12288 block 96 capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: clamp_ifelse nbins 12288 block 1024 one block: ok max_abs_err 0 rel_l2 0
// CHECK: clamp_ifelse one copy nbins 12288 block 128 capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: clamp_ifelse one copy nbins 12288 block 256 one block: ok max_abs_err 0 rel_l2 0
// CHECK: clamp_ifelse nbins 7 offset 0 count 4099 block 96 capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: clamp_ifelse nbins 7 offset 0 count 7 block 96 capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: clamp_ifelse nbins 7 offset 0 count 1 block 96 capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: clamp_ifelse nbins 7 offset 1 count 4099 block 96 capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: clamp_ifelse nbins 7 offset 1 count 7 block 96 capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: clamp_ifelse nbins 7 offset 1 count 1 block 96 capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: clamp_ifelse nbins 7 offset 2 count 4099 block 96 capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: clamp_ifelse nbins 7 offset 2 count 7 block 96 capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: clamp_ifelse nbins 7 offset 2 count 1 block 96 capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: clamp_ifelse nbins 7 offset 3 count 4099 block 96 capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: clamp_ifelse nbins 7 offset 3 count 7 block 96 capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: clamp_ifelse nbins 7 offset 3 count 1 block 96 capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: clamp_ifs nbins 100 block 256 original grid: ok max_abs_err 0 rel_l2 0
// CHECK: clamp_ifs nbins 100 block 96 capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: clamp_ifs nbins 100 block 1024 one block: ok max_abs_err 0 rel_l2 0
// CHECK: clamp_ifs one copy nbins 100 block 128 capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: clamp_ifs one copy nbins 100 block 256 one block: ok max_abs_err 0 rel_l2 0
// CHECK: clamp_ifs nbins 1 block 256 original grid: ok max_abs_err 0 rel_l2 0
// CHECK: clamp_ifs nbins 1 block 96 capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: clamp_ifs nbins 1 block 1024 one block: ok max_abs_err 0 rel_l2 0
// CHECK: clamp_ifs one copy nbins 1 block 128 capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: clamp_ifs one copy nbins 1 block 256 one block: ok max_abs_err 0 rel_l2 0
// CHECK: clamp_ifs nbins 12288 block 256 original grid: ok max_abs_err 0 rel_l2 0
// CHECK: clamp_ifs nbins 12288 block 96 capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: clamp_ifs nbins 12288 block 1024 one block: ok max_abs_err 0 rel_l2 0
// CHECK: clamp_ifs one copy nbins 12288 block 128 capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: clamp_ifs one copy nbins 12288 block 256 one block: ok max_abs_err 0 rel_l2 0
// CHECK: clamp_ifs nbins 7 offset 0 count 4099 block 96 capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: clamp_ifs nbins 7 offset 0 count 7 block 96 capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: clamp_ifs nbins 7 offset 0 count 1 block 96 capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: clamp_ifs nbins 7 offset 1 count 4099 block 96 capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: clamp_ifs nbins 7 offset 1 count 7 block 96 capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: clamp_ifs nbins 7 offset 1 count 1 block 96 capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: clamp_ifs nbins 7 offset 2 count 4099 block 96 capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: clamp_ifs nbins 7 offset 2 count 7 block 96 capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: clamp_ifs nbins 7 offset 2 count 1 block 96 capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: clamp_ifs nbins 7 offset 3 count 4099 block 96 capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: clamp_ifs nbins 7 offset 3 count 7 block 96 capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: clamp_ifs nbins 7 offset 3 count 1 block 96 capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: clamp_minmax nbins 100 block 256 original grid: ok max_abs_err 0 rel_l2 0
// CHECK: clamp_minmax nbins 100 block 96 capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: clamp_minmax nbins 100 block 1024 one block: ok max_abs_err 0 rel_l2 0
// CHECK: clamp_minmax one copy nbins 100 block 128 capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: clamp_minmax one copy nbins 100 block 256 one block: ok max_abs_err 0 rel_l2 0
// CHECK: clamp_minmax nbins 1 block 256 original grid: ok max_abs_err 0 rel_l2 0
// CHECK: clamp_minmax nbins 1 block 96 capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: clamp_minmax nbins 1 block 1024 one block: ok max_abs_err 0 rel_l2 0
// CHECK: clamp_minmax one copy nbins 1 block 128 capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: clamp_minmax one copy nbins 1 block 256 one block: ok max_abs_err 0 rel_l2 0
// CHECK: clamp_minmax nbins 12288 block 256 original grid: ok max_abs_err 0 rel_l2 0
// CHECK: clamp_minmax nbins 12288 block 96 capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: clamp_minmax nbins 12288 block 1024 one block: ok max_abs_err 0 rel_l2 0
// CHECK: clamp_minmax one copy nbins 12288 block 128 capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: clamp_minmax one copy nbins 12288 block 256 one block: ok max_abs_err 0 rel_l2 0
// CHECK: clamp_minmax nbins 7 offset 0 count 4099 block 96 capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: clamp_minmax nbins 7 offset 0 count 7 block 96 capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: clamp_minmax nbins 7 offset 0 count 1 block 96 capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: clamp_minmax nbins 7 offset 1 count 4099 block 96 capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: clamp_minmax nbins 7 offset 1 count 7 block 96 capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: clamp_minmax nbins 7 offset 1 count 1 block 96 capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: clamp_minmax nbins 7 offset 2 count 4099 block 96 capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: clamp_minmax nbins 7 offset 2 count 7 block 96 capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: clamp_minmax nbins 7 offset 2 count 1 block 96 capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: clamp_minmax nbins 7 offset 3 count 4099 block 96 capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: clamp_minmax nbins 7 offset 3 count 7 block 96 capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: clamp_minmax nbins 7 offset 3 count 1 block 96 capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: clamp_loop nbins 100 block 256 original grid: ok max_abs_err 0 rel_l2 0
// CHECK: clamp_loop nbins 100 block 96 capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: clamp_loop nbins 100 block 1024 one block: ok max_abs_err 0 rel_l2 0
// CHECK: clamp_loop nbins 1 block 256 original grid: ok max_abs_err 0 rel_l2 0
// CHECK: clamp_loop nbins 1 block 96 capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: clamp_loop nbins 1 block 1024 one block: ok max_abs_err 0 rel_l2 0
// CHECK: clamp_loop nbins 12288 block 256 original grid: ok max_abs_err 0 rel_l2 0
// CHECK: clamp_loop nbins 12288 block 96 capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: clamp_loop nbins 12288 block 1024 one block: ok max_abs_err 0 rel_l2 0
// CHECK: clamp_loop nbins 7 offset 0 count 4099 block 96 capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: clamp_loop nbins 7 offset 0 count 7 block 96 capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: clamp_loop nbins 7 offset 0 count 1 block 96 capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: clamp_loop nbins 7 offset 1 count 4099 block 96 capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: clamp_loop nbins 7 offset 1 count 7 block 96 capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: clamp_loop nbins 7 offset 1 count 1 block 96 capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: clamp_loop nbins 7 offset 2 count 4099 block 96 capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: clamp_loop nbins 7 offset 2 count 7 block 96 capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: clamp_loop nbins 7 offset 2 count 1 block 96 capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: clamp_loop nbins 7 offset 3 count 4099 block 96 capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: clamp_loop nbins 7 offset 3 count 7 block 96 capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: clamp_loop nbins 7 offset 3 count 1 block 96 capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: const_ternary lanes block 256 original grid: ok max_abs_err 0 rel_l2 0
// CHECK: const_ternary lanes block 96 capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: const_ternary lanes block 1024 one block: ok max_abs_err 0 rel_l2 0
// CHECK: const_ternary one copy block 128 capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: const_ternary one copy block 256 one block: ok max_abs_err 0 rel_l2 0
// CHECK: const_ternary lanes offset 0 count 4099 block 96 capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: const_ternary lanes offset 0 count 7 block 96 capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: const_ternary lanes offset 0 count 1 block 96 capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: const_ternary lanes offset 1 count 4099 block 96 capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: const_ternary lanes offset 1 count 7 block 96 capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: const_ternary lanes offset 1 count 1 block 96 capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: const_ternary lanes offset 2 count 4099 block 96 capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: const_ternary lanes offset 2 count 7 block 96 capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: const_ternary lanes offset 2 count 1 block 96 capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: const_ternary lanes offset 3 count 4099 block 96 capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: const_ternary lanes offset 3 count 7 block 96 capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: const_ternary lanes offset 3 count 1 block 96 capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: const_ifelse lanes block 256 original grid: ok max_abs_err 0 rel_l2 0
// CHECK: const_ifelse lanes block 96 capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: const_ifelse lanes block 1024 one block: ok max_abs_err 0 rel_l2 0
// CHECK: const_ifelse one copy block 128 capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: const_ifelse one copy block 256 one block: ok max_abs_err 0 rel_l2 0
// CHECK: const_ifelse lanes offset 0 count 4099 block 96 capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: const_ifelse lanes offset 0 count 7 block 96 capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: const_ifelse lanes offset 0 count 1 block 96 capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: const_ifelse lanes offset 1 count 4099 block 96 capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: const_ifelse lanes offset 1 count 7 block 96 capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: const_ifelse lanes offset 1 count 1 block 96 capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: const_ifelse lanes offset 2 count 4099 block 96 capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: const_ifelse lanes offset 2 count 7 block 96 capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: const_ifelse lanes offset 2 count 1 block 96 capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: const_ifelse lanes offset 3 count 4099 block 96 capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: const_ifelse lanes offset 3 count 7 block 96 capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: const_ifelse lanes offset 3 count 1 block 96 capped grid: ok max_abs_err 0 rel_l2 0
// CHECK: PASS
#include "check.h"
#include <random>

namespace orig {
#include "histograms.cu"
} // namespace orig
namespace cand {
#include "histograms.priv.cu"
} // namespace cand
namespace second {
#include "histograms.second.cu"
} // namespace second
namespace scal {
#include "histograms.scalar.cu"
} // namespace scal
namespace corig {
#include "hist_clamps.cu"
} // namespace corig
namespace ccand {
#include "hist_clamps.priv.cu"
} // namespace ccand
namespace csecond {
#include "hist_clamps.second.cu"
} // namespace csecond

namespace {

template <typename T> std::vector<T> randomInts(size_t n, unsigned seed, long long lo, long long hi) {
  std::mt19937_64 g(seed);
  std::uniform_int_distribution<long long> d(lo, hi);
  std::vector<T> v(n);
  for (T &x : v)
    x = T(d(g));
  return v;
}

/// Bins start from Init (the original's atomics add to what is there).
template <typename T> struct Bins {
  T *D = nullptr;
  size_t N;
  std::vector<T> Init;
  Bins(size_t N, unsigned Seed) : N(N), Init(randomInts<T>(N, Seed, 0, 5)) {
    CK(cudaMalloc(&D, N * sizeof(T)));
  }
  ~Bins() { cudaFree(D); }
  void reset() { CK(cudaMemcpy(D, Init.data(), N * sizeof(T), cudaMemcpyHostToDevice)); }
  std::vector<T> get() {
    CK(cudaDeviceSynchronize());
    CK(cudaGetLastError());
    return check::download(D, N);
  }
};

/// An allocation with Pad elements before the data: the kernel gets D + Pad.
template <typename T> T *uploadOffset(const std::vector<T> &h, size_t Pad) {
  T *d;
  CK(cudaMalloc(&d, (h.size() + Pad) * sizeof(T)));
  CK(cudaMemcpy(d + Pad, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice));
  return d + Pad;
}

} // namespace

int main(int argc, char **argv) {
  bool Bench = check::bench(argc, argv);
  bool ok = true;
  const int sms = 132;
  {
    long long n = Bench ? (1ll << 28) : 3000017;
    auto h = randomInts<unsigned char>(n, 1, 0, 255);
    // Skew: a third of the bytes are 7, so one bin is hot.
    for (long long i = 0; i < n; i += 3)
      h[i] = 7;
    unsigned char *d = uploadOffset(h, 3);
    Bins<unsigned> b(256, 2);
    auto run = [&](auto kernel, const unsigned char *p, long long cnt, unsigned grid, unsigned block) {
      b.reset();
      kernel<<<grid, block>>>(p, b.D, cnt);
      return b.get();
    };
    unsigned full = check::ceilDiv(n, 256 * 16);
    auto ref = run(orig::histogram256, d, n, full, 256);
    for (auto [name, k] : {std::pair{"histogram256 vector lanes", cand::histogram256},
                           std::pair{"histogram256 vector", second::histogram256},
                           std::pair{"histogram256 scalar", scal::histogram256}}) {
      std::string s(name);
      ok &= check::compare((s + " block 256 original grid").c_str(), ref, run(k, d, n, full, 256), 0, 0);
      ok &= check::compare((s + " block 1024 capped grid").c_str(), ref, run(k, d, n, sms * 2, 1024), 0, 0);
      ok &= check::compare((s + " block 100 original grid").c_str(), ref,
                           run(k, d, n, check::ceilDiv(n, 100 * 16), 100), 0, 0);
      ok &= check::compare((s + " block 256 one block").c_str(), ref, run(k, d, n, 1, 256), 0, 0);
      // Data pointers 0..3 bytes past the 16-byte-aligned start, odd counts,
      // counts shorter than the scalar head.
      for (int off = 0; off < 4; ++off)
        for (long long cnt : {n - 3 - off, 20011ll, 13ll, 1ll}) {
          auto r = run(orig::histogram256, d - 3 + off, cnt, check::ceilDiv(cnt, 256), 256);
          ok &= check::compare((s + " offset " + std::to_string(off) + " count " +
                                std::to_string(cnt) + " block 96 capped grid")
                                   .c_str(),
                               r, run(k, d - 3 + off, cnt, sms * 8, 96), 0, 0);
        }
    }
    if (Bench) {
      check::report("histogram256 2^28 bytes, vector lanes",
                    check::time([&] { orig::histogram256<<<full, 256>>>(d, b.D, n); }),
                    check::time([&] { cand::histogram256<<<sms * 6, 256>>>(d - 3, b.D, n); }));
      check::report("histogram256 2^28 bytes, vector one copy",
                    check::time([&] { orig::histogram256<<<full, 256>>>(d, b.D, n); }),
                    check::time([&] { second::histogram256<<<sms * 4 * 8, 256>>>(d - 3, b.D, n); }));
    }
    CK(cudaFree(d - 3));
  }
  {
    int n = 1000003;
    auto h = randomInts<unsigned>(n, 3, 0, 1u << 31);
    unsigned *d = uploadOffset(h, 1);
    for (int nb : {1000, 7, 12288}) {
      Bins<unsigned> b(nb, 4);
      auto run = [&](bool c, unsigned grid, unsigned block) {
        b.reset();
        if (c)
          cand::hist_mod<<<grid, block, size_t(nb) * sizeof(unsigned)>>>(d, b.D, nb, n);
        else
          orig::hist_mod<<<grid, block>>>(d, b.D, nb, n);
        return b.get();
      };
      auto ref = run(false, check::ceilDiv(n, 256), 256);
      std::string s = "hist_mod nbins " + std::to_string(nb);
      if (nb == 1000) {
        ok &= check::compare((s + " block 256 original grid").c_str(), ref,
                             run(true, check::ceilDiv(n, 256), 256), 0, 0);
        ok &= check::compare((s + " block 96 capped grid").c_str(), ref, run(true, sms * 4, 96), 0, 0);
        ok &= check::compare((s + " one block").c_str(), ref, run(true, 1, 256), 0, 0);
        b.reset();
        cand::launch_mod(d, b.D, nb, n, 192);
        ok &= check::compare("hist_mod through the rewritten launch", ref, b.get(), 0, 0);
      } else if (nb == 7) {
        ok &= check::compare((s + " block 128 original grid").c_str(), ref,
                             run(true, check::ceilDiv(n, 128), 128), 0, 0);
      } else {
        ok &= check::compare((s + " block 512 capped grid").c_str(), ref, run(true, sms, 512), 0, 0);
      }
    }
    CK(cudaFree(d - 1));
  }
  {
    int n = 777781;
    auto h = randomInts<unsigned>(n, 5, 0, 100);
    unsigned *d = uploadOffset(h, 1);
    Bins<unsigned long long> b(64, 6);
    auto run = [&](auto kernel, unsigned block) {
      b.reset();
      kernel<<<check::ceilDiv(n, block), block>>>(d, b.D, n);
      return b.get();
    };
    auto ref = run(orig::clamped, 256);
    for (unsigned block : {256u, 33u, 1024u})
      ok &= check::compare(("clamped block " + std::to_string(block)).c_str(), ref,
                           run(cand::clamped, block), 0, 0);
    CK(cudaFree(d - 1));
  }
  {
    int n = 500009;
    auto key = randomInts<int>(n, 7, -100000, 100000);
    // Weights that are multiples of 1/4 below 64: every partial sum is exact in float.
    auto q = randomInts<int>(n, 8, 0, 255);
    std::vector<float> w(n);
    for (int i = 0; i < n; ++i)
      w[i] = q[i] * 0.25f;
    int *dk = uploadOffset(key, 1);
    float *dw = uploadOffset(w, 1);
    Bins<float> b(128, 9);
    auto run = [&](auto kernel, unsigned block) {
      b.reset();
      kernel<<<check::ceilDiv(n, block), block>>>(dk, dw, b.D, n);
      return b.get();
    };
    auto ref = run(orig::weighted, 256);
    for (unsigned block : {256u, 160u})
      ok &= check::compare(("weighted block " + std::to_string(block)).c_str(), ref,
                           run(cand::weighted, block), 0, 0);
    CK(cudaFree(dk - 1));
    CK(cudaFree(dw - 1));
  }
  {
    int width = 1001, height = 517, pitch = 1024;
    auto img = randomInts<unsigned char>(size_t(pitch) * height, 10, 0, 255);
    unsigned char *d = uploadOffset(img, 5);
    Bins<unsigned> b(256, 11);
    auto run = [&](auto kernel, dim3 block) {
      b.reset();
      dim3 grid(check::ceilDiv(width, block.x), check::ceilDiv(height, block.y));
      kernel<<<grid, block>>>(d, b.D, width, height, pitch);
      return b.get();
    };
    auto ref = run(orig::image, dim3(16, 16));
    ok &= check::compare("image 16x16", ref, run(cand::image, dim3(16, 16)), 0, 0);
    ok &= check::compare("image 32x4", ref, run(cand::image, dim3(32, 4)), 0, 0);
    ok &= check::compare("image 7x9", ref, run(cand::image, dim3(7, 9)), 0, 0);
    // The virtual blocks: any grid, 1D or 2D, counts the guard's pixels.
    auto runGrid = [&](auto kernel, dim3 block, dim3 grid) {
      b.reset();
      kernel<<<grid, block>>>(d, b.D, width, height, pitch);
      return b.get();
    };
    ok &= check::compare("image 16x16 capped grid", ref,
                         runGrid(cand::image, dim3(16, 16), dim3(sms * 4)), 0, 0);
    ok &= check::compare("image 32x8 one block", ref, runGrid(cand::image, dim3(32, 8), dim3(1)),
                         0, 0);
    ok &= check::compare("image 16x16 grid 5x3", ref,
                         runGrid(cand::image, dim3(16, 16), dim3(5, 3)), 0, 0);
    ok &= check::compare("image one copy 16x16", ref, run(second::image, dim3(16, 16)), 0, 0);
    ok &= check::compare("image one copy 7x9 capped grid", ref,
                         runGrid(second::image, dim3(7, 9), dim3(sms * 2)), 0, 0);
    CK(cudaFree(d - 5));
  }
  // The rows in 16-byte loads: a pitch that moves each row's 16-byte
  // boundary (odd), rows narrower than one step and than the head, a wide
  // row with a short image, each at an offset from the allocation; with
  // the pitch equal to the width (21 and 1001), the rows are one range.
  {
    struct Img {
      int width, height, pitch, offset;
    } Imgs[] = {{1001, 517, 1003, 3}, {7, 33, 9, 1}, {21, 40, 21, 15}, {4099, 3, 4111, 2},
                {1001, 77, 1001, 3}};
    for (const Img &G : Imgs) {
      auto img = randomInts<unsigned char>(size_t(G.pitch) * G.height, 14, 0, 255);
      unsigned char *d = uploadOffset(img, G.offset);
      Bins<unsigned> b(256, 15);
      auto runGrid = [&](auto kernel, dim3 block, dim3 grid) {
        b.reset();
        kernel<<<grid, block>>>(d, b.D, G.width, G.height, G.pitch);
        return b.get();
      };
      auto cover = [&](dim3 block) {
        return dim3(check::ceilDiv(G.width, block.x), check::ceilDiv(G.height, block.y));
      };
      std::string tag = "image rows " + std::to_string(G.width) + "x" +
                        std::to_string(G.height) + " pitch " + std::to_string(G.pitch) +
                        " offset " + std::to_string(G.offset);
      auto ref = runGrid(orig::image, dim3(16, 16), cover(dim3(16, 16)));
      ok &= check::compare((tag + " lanes 16x16").c_str(), ref,
                           runGrid(cand::image, dim3(16, 16), cover(dim3(16, 16))), 0, 0);
      ok &= check::compare((tag + " lanes 32x4 capped grid").c_str(), ref,
                           runGrid(cand::image, dim3(32, 4), dim3(sms * 4)), 0, 0);
      ok &= check::compare((tag + " one copy 7x9 one block").c_str(), ref,
                           runGrid(second::image, dim3(7, 9), dim3(1)), 0, 0);
      ok &= check::compare((tag + " one copy 16x16 grid 5x3").c_str(), ref,
                           runGrid(second::image, dim3(16, 16), dim3(5, 3)), 0, 0);
      ok &= check::compare((tag + " virtual blocks 16x16 capped grid").c_str(), ref,
                           runGrid(scal::image, dim3(16, 16), dim3(sms * 2)), 0, 0);
      CK(cudaFree(d - G.offset));
    }
  }
  {
    int n = 654323;
    auto key = randomInts<int>(n, 12, -20, 230);
    auto val = randomInts<int>(n, 13, -1000000, 1000000);
    int *dk = uploadOffset(key, 1), *dv = uploadOffset(val, 2);
    Bins<int> b(200, 14);
    auto run = [&](auto kernel, unsigned block) {
      b.reset();
      kernel<<<check::ceilDiv(n, block), block>>>(dk, dv, b.D, n);
      return b.get();
    };
    auto ref = run(orig::maxbin, 256);
    ok &= check::compare("maxbin block 256", ref, run(cand::maxbin, 256), 0, 0);
    ok &= check::compare("maxbin block 100", ref, run(cand::maxbin, 100), 0, 0);
    ok &= check::compare("maxbin one copy block 256", ref, run(second::maxbin, 256), 0, 0);
    ok &= check::compare("maxbin one copy block 1024", ref, run(second::maxbin, 1024), 0, 0);
    auto runGrid = [&](auto kernel, unsigned block, unsigned grid) {
      b.reset();
      kernel<<<grid, block>>>(dk, dv, b.D, n);
      return b.get();
    };
    ok &= check::compare("maxbin block 96 capped grid", ref, runGrid(cand::maxbin, 96, sms * 4), 0,
                         0);
    ok &= check::compare("maxbin one copy one block", ref, runGrid(second::maxbin, 256, 1), 0, 0);
    CK(cudaFree(dk - 1));
    CK(cudaFree(dv - 2));
  }
  {
    int n = 300007;
    auto key = randomInts<unsigned>(n, 15, 0, 0xffffffffu);
    unsigned *d = uploadOffset(key, 3);
    Bins<int> b(256, 16);
    for (int &x : b.Init)
      x = 0;
    auto run = [&](auto kernel, unsigned grid, unsigned block) {
      b.reset();
      kernel<<<grid, block>>>(d, b.D, n);
      return b.get();
    };
    auto ref = run(orig::orbits, check::ceilDiv(n, 256), 256);
    ok &= check::compare("orbits block 256 original grid", ref,
                         run(cand::orbits, check::ceilDiv(n, 256), 256), 0, 0);
    ok &= check::compare("orbits block 64 one block", ref, run(cand::orbits, 1, 64), 0, 0);
    ok &= check::compare("orbits one copy block 256 capped grid", ref,
                         run(second::orbits, sms * 2, 256), 0, 0);
    ok &= check::compare("orbits one copy block 992 one block", ref, run(second::orbits, 1, 992), 0, 0);
    CK(cudaFree(d - 3));
  }
  {
    // One byte per thread under 'if (i < n)', 16-bit keys after an early
    // exit, byte keys with float weights: the 16-byte variants loop over the
    // grid, so any grid gives the original's counts over the full grid.
    int n = 1000037;
    auto h = randomInts<unsigned char>(n + 16, 17, 0, 255);
    auto k16 = randomInts<unsigned short>(n + 16, 18, 0, 65535);
    auto q = randomInts<int>(n + 16, 19, 0, 255);
    std::vector<float> w(n + 16);
    for (int i = 0; i < n + 16; ++i)
      w[i] = q[i] * 0.25f; // sums of multiples of 1/4 below 2^22 are exact in float
    unsigned char *d = uploadOffset(h, 0);
    unsigned short *dk = uploadOffset(k16, 0);
    float *dw = uploadOffset(w, 0);
    Bins<unsigned> b(256, 20), b16(1024, 21);
    Bins<float> bf(200, 22);
    for (float &x : bf.Init)
      x = 0;
    for (int off = 0; off < 4; ++off)
      for (int cnt : {n - off, 4099, 7, 1}) {
        std::string tail = " offset " + std::to_string(off) + " count " + std::to_string(cnt);
        unsigned full = check::ceilDiv(cnt, 256);
        b.reset();
        orig::bytes1<<<full, 256>>>(d + off, b.D, cnt);
        auto r1 = b.get();
        b16.reset();
        orig::keys16<<<full, 256>>>(dk + off, b16.D, cnt);
        auto r2 = b16.get();
        // The weights offset like the keys (the 16-byte path) or by one float
        // more (their own alignment differs: all scalar).
        for (int woff : {off, off + 1}) {
          bf.reset();
          orig::wbytes<<<full, 256>>>(d + off, dw + woff, bf.D, cnt);
          auto r3 = bf.get();
          struct Shape {
            unsigned grid, block;
            const char *name;
          };
          for (Shape sh : {Shape{full, 256u, "original grid"}, Shape{unsigned(sms * 8), 160u, "capped grid"},
                           Shape{1u, 1024u, "one block"}}) {
            unsigned grid = sh.grid, block = sh.block;
            std::string g = std::string(" ") + sh.name + " block " + std::to_string(block);
            if (woff == off) {
              b.reset();
              cand::bytes1<<<grid, block>>>(d + off, b.D, cnt);
              ok &= check::compare(("bytes1 vector lanes" + tail + g).c_str(), r1, b.get(), 0, 0);
              b.reset();
              second::bytes1<<<grid, block>>>(d + off, b.D, cnt);
              ok &= check::compare(("bytes1 vector" + tail + g).c_str(), r1, b.get(), 0, 0);
              b16.reset();
              cand::keys16<<<grid, block>>>(dk + off, b16.D, cnt);
              ok &= check::compare(("keys16 vector lanes" + tail + g).c_str(), r2, b16.get(), 0, 0);
              b16.reset();
              second::keys16<<<grid, block>>>(dk + off, b16.D, cnt);
              ok &= check::compare(("keys16 vector" + tail + g).c_str(), r2, b16.get(), 0, 0);
            }
            std::string wt = tail + " weights offset " + std::to_string(woff) + g;
            bf.reset();
            cand::wbytes<<<grid, block>>>(d + off, dw + woff, bf.D, cnt);
            ok &= check::compare(("wbytes vector lanes" + wt).c_str(), r3, bf.get(), 0, 0);
            bf.reset();
            second::wbytes<<<grid, block>>>(d + off, dw + woff, bf.D, cnt);
            ok &= check::compare(("wbytes vector" + wt).c_str(), r3, bf.get(), 0, 0);
          }
        }
      }
    CK(cudaFree(d));
    CK(cudaFree(dk));
    CK(cudaFree(dw));
  }
  // Bins bounded by their value range: the first proposals against the
  // originals, odd counts, offset pointers, several blocks and grids.
  {
    int n = 700001;
    auto q = randomInts<int>(n, 21, -200, 1200);
    std::vector<float> x(n);
    for (int i = 0; i < n; ++i)
      x[i] = q[i] / 1000.0f; // below lo and above hi too: both clamps run
    float *dx = uploadOffset(x, 1);
    Bins<unsigned> b(64, 22);
    auto run = [&](auto kernel, unsigned grid, unsigned block) {
      b.reset();
      kernel<<<grid, block>>>(dx, b.D, n, 0.0f, 1.0f);
      return b.get();
    };
    auto ref = run(orig::ifclamp, check::ceilDiv(n, 256), 256);
    ok &= check::compare("ifclamp block 256 original grid", ref,
                         run(cand::ifclamp, check::ceilDiv(n, 256), 256), 0, 0);
    ok &= check::compare("ifclamp block 96 capped grid", ref, run(cand::ifclamp, sms * 4, 96), 0, 0);
    CK(cudaFree(dx - 1));
  }
  {
    size_t n = 1000003;
    auto t = randomInts<char>(n, 23, 32, 126);
    char *dt = uploadOffset(t, 3);
    Bins<unsigned> b(26, 24);
    auto run = [&](auto kernel, unsigned grid, unsigned block) {
      b.reset();
      kernel<<<grid, block>>>(dt, b.D, n);
      return b.get();
    };
    auto ref = run(orig::letters, check::ceilDiv(n, 256), 256);
    ok &= check::compare("letters block 256 original grid", ref,
                         run(cand::letters, check::ceilDiv(n, 256), 256), 0, 0);
    ok &= check::compare("letters block 160 capped grid", ref, run(cand::letters, sms * 4, 160), 0,
                         0);
    CK(cudaFree(dt - 3));
  }
  {
    int n = 900007;
    auto a = randomInts<unsigned char>(n, 25, 0, 255), c = randomInts<unsigned char>(n, 26, 0, 255);
    unsigned char *da = uploadOffset(a, 1), *dc = uploadOffset(c, 2);
    Bins<unsigned> b(256, 27);
    auto run = [&](auto kernel, unsigned grid, unsigned block) {
      b.reset();
      kernel<<<grid, block>>>(da, dc, b.D, n);
      return b.get();
    };
    auto ref = run(orig::joint, check::ceilDiv(n, 256), 256);
    ok &= check::compare("joint block 256 original grid", ref,
                         run(cand::joint, check::ceilDiv(n, 256), 256), 0, 0);
    ok &= check::compare("joint block 128 capped grid", ref, run(cand::joint, sms * 2, 128), 0, 0);
    ok &= check::compare("joint one block", ref, run(cand::joint, 1, 256), 0, 0);
    CK(cudaFree(da - 1));
    CK(cudaFree(dc - 2));
  }
  // The 16-bit image whose index is computed before its guard, in rows of
  // 16-byte loads (8 pixels): an odd pitch, a row narrower than a step.
  {
    struct Img {
      int width, height, pitch, offset;
    } Imgs[] = {{1001, 77, 1003, 3}, {13, 5, 13, 1}};
    for (const Img &G : Imgs) {
      auto img = randomInts<unsigned short>(size_t(G.pitch) * G.height, 28, 0, 65535);
      unsigned short *d = uploadOffset(img, G.offset);
      Bins<unsigned> b(256, 29);
      auto runGrid = [&](auto kernel, dim3 block, dim3 grid) {
        b.reset();
        kernel<<<grid, block>>>(d, b.D, G.width, G.height, G.pitch);
        return b.get();
      };
      auto cover = [&](dim3 block) {
        return dim3(check::ceilDiv(G.width, block.x), check::ceilDiv(G.height, block.y));
      };
      std::string tag = "image16 " + std::to_string(G.width) + "x" + std::to_string(G.height) +
                        " pitch " + std::to_string(G.pitch) + " offset " + std::to_string(G.offset);
      auto ref = runGrid(orig::image16, dim3(16, 16), cover(dim3(16, 16)));
      ok &= check::compare((tag + " 16x16").c_str(), ref,
                           runGrid(cand::image16, dim3(16, 16), cover(dim3(16, 16))), 0, 0);
      ok &= check::compare((tag + " 32x4 capped grid").c_str(), ref,
                           runGrid(cand::image16, dim3(32, 4), dim3(sms * 4)), 0, 0);
      ok &= check::compare((tag + " 7x9 one block").c_str(), ref,
                           runGrid(cand::image16, dim3(7, 9), dim3(1)), 0, 0);
      CK(cudaFree(d - G.offset));
    }
  }
  // Clamps written as statements after the index's declaration (forms 1 to
  // 4, a local declared outside the grid-stride loop; to a parameter number
  // of bins in dynamic shared memory, and to the constant 100): floats
  // below 0 and above 1, NaN, infinities and huge values that the clamps
  // catch; 1, 7, 100 and 12288 bins (48 KiB); odd counts, offset pointers,
  // several blocks and grids, the first proposals (16-byte loads but for
  // clamp_loop) and the second (virtual blocks, or the scalar loop).
  {
    int n = 700001;
    auto q = randomInts<int>(n + 8, 30, -200, 1200);
    std::vector<float> x(n + 8);
    for (int i = 0; i < n + 8; ++i)
      x[i] = i % 97 == 5 ? NAN : i % 101 == 7 ? INFINITY : i % 103 == 9 ? -INFINITY
             : i % 107 == 11 ? 3e9f : i % 109 == 13 ? -3e9f : q[i] / 1000.0f;
    float *dx = uploadOffset(x, 0);
    using PK = void (*)(const float *, unsigned *, int, int);
    struct PKernel {
      const char *name;
      PK orig, cand, second;
    } PKs[] = {{"clamp_ternary", corig::clamp_ternary, ccand::clamp_ternary, csecond::clamp_ternary},
               {"clamp_ifelse", corig::clamp_ifelse, ccand::clamp_ifelse, csecond::clamp_ifelse},
               {"clamp_ifs", corig::clamp_ifs, ccand::clamp_ifs, csecond::clamp_ifs},
               {"clamp_minmax", corig::clamp_minmax, ccand::clamp_minmax, csecond::clamp_minmax},
               {"clamp_loop", corig::clamp_loop, ccand::clamp_loop, nullptr}};
    for (const PKernel &K : PKs) {
      auto run = [&](PK k, bool priv, int nb, int off, int cnt, unsigned grid, unsigned block) {
        Bins<unsigned> b(nb, 31);
        b.reset();
        k<<<grid, block, priv ? size_t(nb) * sizeof(unsigned) : 0>>>(dx + off, b.D, cnt, nb);
        return b.get();
      };
      std::string s(K.name);
      for (int nb : {100, 1, 12288}) {
        auto ref = run(K.orig, false, nb, 1, n, check::ceilDiv(n, 256), 256);
        std::string t = s + " nbins " + std::to_string(nb);
        ok &= check::compare((t + " block 256 original grid").c_str(), ref,
                             run(K.cand, true, nb, 1, n, check::ceilDiv(n, 256), 256), 0, 0);
        ok &= check::compare((t + " block 96 capped grid").c_str(), ref,
                             run(K.cand, true, nb, 1, n, sms * 4, 96), 0, 0);
        ok &= check::compare((t + " block 1024 one block").c_str(), ref,
                             run(K.cand, true, nb, 1, n, 1, 1024), 0, 0);
        if (K.second) {
          ok &= check::compare((s + " one copy nbins " + std::to_string(nb) + " block 128 capped grid").c_str(),
                               ref, run(K.second, true, nb, 1, n, sms * 2, 128), 0, 0);
          ok &= check::compare((s + " one copy nbins " + std::to_string(nb) + " block 256 one block").c_str(),
                               ref, run(K.second, true, nb, 1, n, 1, 256), 0, 0);
        }
      }
      for (int off = 0; off < 4; ++off)
        for (int cnt : {4099, 7, 1}) {
          auto ref = run(K.orig, false, 7, off, cnt, check::ceilDiv(cnt, 256), 256);
          ok &= check::compare((s + " nbins 7 offset " + std::to_string(off) + " count " +
                                std::to_string(cnt) + " block 96 capped grid")
                                   .c_str(),
                               ref, run(K.cand, true, 7, off, cnt, sms * 4, 96), 0, 0);
        }
    }
    using CK3 = void (*)(const float *, unsigned *, int);
    struct CKernel {
      const char *name;
      CK3 orig, cand, second;
    } CKs[] = {{"const_ternary", corig::const_ternary, ccand::const_ternary, csecond::const_ternary},
               {"const_ifelse", corig::const_ifelse, ccand::const_ifelse, csecond::const_ifelse}};
    Bins<unsigned> b(100, 32);
    for (const CKernel &K : CKs) {
      auto run = [&](CK3 k, int off, int cnt, unsigned grid, unsigned block) {
        b.reset();
        k<<<grid, block>>>(dx + off, b.D, cnt);
        return b.get();
      };
      std::string s(K.name);
      auto ref = run(K.orig, 1, n, check::ceilDiv(n, 256), 256);
      ok &= check::compare((s + " lanes block 256 original grid").c_str(), ref,
                           run(K.cand, 1, n, check::ceilDiv(n, 256), 256), 0, 0);
      ok &= check::compare((s + " lanes block 96 capped grid").c_str(), ref, run(K.cand, 1, n, sms * 4, 96),
                           0, 0);
      ok &= check::compare((s + " lanes block 1024 one block").c_str(), ref, run(K.cand, 1, n, 1, 1024), 0,
                           0);
      ok &= check::compare((s + " one copy block 128 capped grid").c_str(), ref,
                           run(K.second, 1, n, sms * 2, 128), 0, 0);
      ok &= check::compare((s + " one copy block 256 one block").c_str(), ref, run(K.second, 1, n, 1, 256),
                           0, 0);
      for (int off = 0; off < 4; ++off)
        for (int cnt : {4099, 7, 1}) {
          auto r = run(K.orig, off, cnt, check::ceilDiv(cnt, 256), 256);
          ok &= check::compare((s + " lanes offset " + std::to_string(off) + " count " +
                                std::to_string(cnt) + " block 96 capped grid")
                                   .c_str(),
                               r, run(K.cand, off, cnt, sms * 4, 96), 0, 0);
        }
    }
    CK(cudaFree(dx));
  }
  std::printf("%s\n", ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
