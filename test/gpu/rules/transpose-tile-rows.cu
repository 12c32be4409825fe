// The transpose-tile rule's rewrites of naive transposes whose blocks walk
// the rows of a 32 x 32 tile in a loop (test/gpu/Inputs/rules/
// transpose_rows.cu: NVIDIA's transposeNaive, a bound-checked one stepping
// by blockDim.y, a double one from threadIdx.y with strided reads, a while
// loop) compute bitwise what the originals compute, on the GPU, with
// 32 x 32 tiles (the first proposal) and 64 x 64 tiles (the second).
// Every launch the kernels allow is compared: the blog's grid (n/32, n/32)
// and block (32, 8) (the fast path), a smaller grid and one block (the
// original covers less; the rewrite keeps each block's coverage), blocks
// of other heights that the tiled body takes (32 x 4, 32 x 16, 32 x 32 for
// a step of blockDim.y) and blocks its positions were not written for,
// which run the original body (16 x 8, 32 x 4 with a constant step,
// 32 x 12); sizes that are not multiples of 32 or 64, one smaller than a
// tile, and pointers offset by 1 and 3 elements. The whole allocation is
// compared, with the output poisoned before each launch, so a stray or a
// missing write shows. `--bench` times 8192^2 on the blog's launch.
// REQUIRES: gpu, cuda
// RUN: rm -rf %t.d && mkdir -p %t.d
// RUN: forge-port propose %S/../Inputs/rules/transpose_rows.cu --kernel transposeNaive --block 32,8 --rules=transpose-tile --apply -o %t.d/a32.cu
// RUN: forge-port propose %t.d/a32.cu --kernel transposeRowsWH --block 32,8 --rules=transpose-tile --apply -o %t.d/b32.cu
// RUN: forge-port propose %t.d/b32.cu --kernel transposeRowsScaled --block 32,8 --rules=transpose-tile --apply -o %t.d/c32.cu
// RUN: forge-port propose %t.d/c32.cu --kernel transposeRowsWhile --block 32,8 --rules=transpose-tile --apply -o %t.d/t32.cu
// RUN: forge-port propose %S/../Inputs/rules/transpose_rows.cu --kernel transposeNaive --block 32,8 --rules=transpose-tile --format=json > %t.d/a64.json
// RUN: %python %S/../../Inputs/apply_proposal.py %t.d/a64.json 1 %S/../Inputs/rules/transpose_rows.cu > %t.d/a64.cu
// RUN: forge-port propose %t.d/a64.cu --kernel transposeRowsWH --block 32,8 --rules=transpose-tile --format=json > %t.d/b64.json
// RUN: %python %S/../../Inputs/apply_proposal.py %t.d/b64.json 1 %t.d/a64.cu > %t.d/b64.cu
// RUN: forge-port propose %t.d/b64.cu --kernel transposeRowsScaled --block 32,8 --rules=transpose-tile --format=json > %t.d/c64.json
// RUN: %python %S/../../Inputs/apply_proposal.py %t.d/c64.json 1 %t.d/b64.cu > %t.d/c64.cu
// RUN: forge-port propose %t.d/c64.cu --kernel transposeRowsWhile --block 32,8 --rules=transpose-tile --format=json > %t.d/t64.json
// RUN: %python %S/../../Inputs/apply_proposal.py %t.d/t64.json 1 %t.d/c64.cu > %t.d/t64.cu
// RUN: test $(grep -c "forge_tile\[32\]\[32 + 1\]" %t.d/t32.cu) -eq 4
// RUN: test $(grep -c "forge_tile\[64\]\[64 + 1\]" %t.d/t64.cu) -eq 4
// RUN: grep -q "if (blockDim.x != 32 || blockDim.y != 8) {" %t.d/t32.cu
// RUN: grep -q "if (blockDim.x != 32 || 32 % blockDim.y != 0) {" %t.d/t32.cu
// RUN: %nvcc -arch=native -O3 -I%S/../Inputs/rules -I%t.d %s -o %t.d/check
// RUN: %t.d/check | FileCheck %s --implicit-check-not=MISMATCH --implicit-check-not=FAIL
// CHECK-COUNT-40: transposeNaive {{.*}}: ok max_abs_err 0 rel_l2 0
// CHECK-COUNT-72: transposeRowsWH {{.*}}: ok max_abs_err 0 rel_l2 0
// CHECK-COUNT-66: transposeRowsWhile {{.*}}: ok max_abs_err 0 rel_l2 0
// CHECK-COUNT-28: transposeRowsScaled {{.*}}: ok max_abs_err 0 rel_l2 0
// CHECK: PASS

#include "transpose_buffers.h"

namespace orig {
#include "transpose_rows.cu"
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

bool ok = true;

// Runs the original and the candidate on each shape and compares the whole
// output allocation. Launch(kernel, grid, block) launches one of them.
template <typename T, typename Orig, typename Cand, typename Launch>
void compareShapes(const char *what0, Buffers<T> &B, Orig orig, Cand cand, Launch launch,
                   const std::vector<Shape> &shapes) {
  auto run = [&](auto kernel, const Shape &S) {
    check::poison(B.Out, B.N);
    launch(kernel, S.Grid, S.Block);
    CK(cudaGetLastError());
    return check::download(B.Out, B.N);
  };
  for (const Shape &S : shapes) {
    char what[200];
    std::snprintf(what, sizeof what, "%s %s", what0, S.Name);
    ok &= check::compare(what, run(orig, S), run(cand, S), 0, 0);
  }
}

// transposeNaive: a square n x n matrix whose width is the grid's, n a
// multiple of 32 (it has no bound check). Grids with gridDim.y <= gridDim.x
// (taller ones make the original write one element from two threads).
template <typename K> void checkNaive(const char *variant, K cand, unsigned n, unsigned off) {
  Buffers<float> B(size_t(n) * n, n + off);
  char what0[120];
  std::snprintf(what0, sizeof what0, "transposeNaive %s %ux%u +%u", variant, n, n, off);
  unsigned t = n / 32;
  std::vector<Shape> shapes = {
      {"32x8 blog grid", dim3(t, t), dim3(32, 8)},
      {"32x8 half the rows", dim3(t, (t + 1) / 2), dim3(32, 8)},
      {"32x8 one block", dim3(1, 1), dim3(32, 8)},
      {"32x4 (original body)", dim3(t, t), dim3(32, 4)},
      {"16x8 (original body)", dim3(t, t), dim3(16, 8)}};
  compareShapes(what0, B, orig::transposeNaive, cand,
                [&](auto kernel, dim3 grid, dim3 block) {
                  kernel<<<grid, block>>>(B.Out + off, B.In + off);
                },
                shapes);
}

// The other kernels: an h x w matrix (in) into w x h (out), the grid
// ceil(w / 32) x ceil(h / 32) or less. Which blocks the tiled body takes
// depends on the kernel: with a step of blockDim.y every height dividing
// 32 (32 x 12 runs the original body), with a constant step only 32 x 8;
// a width written with 32 takes only 32-wide blocks (16 x 8 runs the
// original body), one written with blockDim.x any width.
std::vector<Shape> boundedShapes(unsigned w, unsigned h, bool constantStep, bool freeWidth) {
  using check::ceilDiv;
  dim3 tiles(ceilDiv(w, 32), ceilDiv(h, 32));
  std::vector<Shape> S = {{"32x8 original grid", tiles, dim3(32, 8)},
                          {"32x8 small grid", dim3(3, 2), dim3(32, 8)},
                          {"32x8 one block", dim3(1, 1), dim3(32, 8)},
                          {"32x4", tiles, dim3(32, 4)},
                          {"32x16", tiles, dim3(32, 16)},
                          {"32x32", tiles, dim3(32, 32)}};
  if (!constantStep) {
    S.push_back({"32x12", tiles, dim3(32, 12)});
    S.push_back({"32x8x2", tiles, dim3(32, 8, 2)});
  }
  if (freeWidth) {
    S.push_back({"64x4", dim3(ceilDiv(w, 64), ceilDiv(h, 32)), dim3(64, 4)});
    S.push_back({"128x1", dim3(ceilDiv(w, 128), ceilDiv(h, 32)), dim3(128, 1)});
    S.push_back({"16x16", dim3(ceilDiv(w, 16), ceilDiv(h, 32)), dim3(16, 16)});
  } else {
    S.push_back({"16x8", tiles, dim3(16, 8)});
  }
  return S;
}

// A float kernel (out, in, w, h): an h x w matrix into w x h.
template <typename Orig, typename K>
void checkFloat(const char *name, Orig orig, const char *variant, K cand, unsigned h, unsigned w,
                unsigned offIn, unsigned offOut, bool freeWidth) {
  Buffers<float> B(size_t(h) * w, h + w + offIn);
  char what0[120];
  std::snprintf(what0, sizeof what0, "%s %s %ux%u +%u/+%u", name, variant, h, w, offIn, offOut);
  compareShapes(what0, B, orig, cand,
                [&](auto kernel, dim3 grid, dim3 block) {
                  kernel<<<grid, block>>>(B.Out + offOut, B.In + offIn, int(w), int(h));
                },
                boundedShapes(w, h, false, freeWidth));
}

// a: n x m read along m (strided across the warp), b: m x n.
template <typename K>
void checkScaled(const char *variant, K cand, unsigned n, unsigned m, unsigned off) {
  Buffers<double> B(size_t(n) * m, 7 + off);
  char what0[120];
  std::snprintf(what0, sizeof what0, "transposeRowsScaled %s %ux%u +%u", variant, n, m, off);
  // x runs over i < n, y over j < m.
  compareShapes(what0, B, orig::transposeRowsScaled, cand,
                [&](auto kernel, dim3 grid, dim3 block) {
                  kernel<<<grid, block>>>(B.In + off, B.Out + off, 0.75, int(n), int(m));
                },
                boundedShapes(n, m, true, false));
}

void bench() {
  unsigned n = 8192;
  Buffers<float> B(size_t(n) * n, 1);
  dim3 grid(n / 32, n / 32), block(32, 8);
  double t0 = check::time([&] { orig::transposeNaive<<<grid, block>>>(B.Out, B.In); });
  check::report("transposeNaive 8192^2 f32, 32 x 32 tiles", t0,
                check::time([&] { c32::transposeNaive<<<grid, block>>>(B.Out, B.In); }));
  check::report("transposeNaive 8192^2 f32, 64 x 64 tiles", t0,
                check::time([&] { c64::transposeNaive<<<grid, block>>>(B.Out, B.In); }));
  double w0 = check::time([&] { orig::transposeRowsWH<<<grid, block>>>(B.Out, B.In, n, n); });
  check::report("transposeRowsWH 8192^2 f32, 32 x 32 tiles", w0,
                check::time([&] { c32::transposeRowsWH<<<grid, block>>>(B.Out, B.In, n, n); }));
}

} // namespace

int main(int argc, char **argv) {
  for (unsigned n : {1024u, 96u, 32u}) {
    checkNaive("32", c32::transposeNaive, n, 0);
    checkNaive("64", c64::transposeNaive, n, 0);
  }
  checkNaive("32", c32::transposeNaive, 1024, 1);
  checkNaive("64", c64::transposeNaive, 1024, 3);
  // Sizes that are not multiples of 32 or 64, a multiple of 64, and one
  // smaller than a tile; pointers offset by 1 and 3 elements.
  const unsigned Sizes[][2] = {{1031, 777}, {256, 192}, {5, 3}};
  for (auto [h, w] : Sizes) {
    checkFloat("transposeRowsWH", orig::transposeRowsWH, "32", c32::transposeRowsWH, h, w, 0, 0,
               false);
    checkFloat("transposeRowsWH", orig::transposeRowsWH, "64", c64::transposeRowsWH, h, w, 0, 0,
               false);
  }
  checkFloat("transposeRowsWH", orig::transposeRowsWH, "32", c32::transposeRowsWH, 1031, 777, 1,
             3, false);
  checkFloat("transposeRowsWH", orig::transposeRowsWH, "64", c64::transposeRowsWH, 1031, 777, 1,
             3, false);
  for (auto [h, w] : Sizes)
    checkFloat("transposeRowsWhile", orig::transposeRowsWhile, "32", c32::transposeRowsWhile, h, w,
               0, 0, true);
  checkFloat("transposeRowsWhile", orig::transposeRowsWhile, "32", c32::transposeRowsWhile, 1031,
             777, 3, 3, true);
  checkFloat("transposeRowsWhile", orig::transposeRowsWhile, "64", c64::transposeRowsWhile, 1031,
             777, 1, 1, true);
  checkFloat("transposeRowsWhile", orig::transposeRowsWhile, "64", c64::transposeRowsWhile, 256,
             192, 0, 0, true);
  for (unsigned off : {0u, 1u}) {
    checkScaled("32", c32::transposeRowsScaled, 1031, 777, off);
    checkScaled("64", c64::transposeRowsScaled, 1031, 777, off);
  }
  if (check::bench(argc, argv))
    bench();
  std::printf("%s\n", ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
