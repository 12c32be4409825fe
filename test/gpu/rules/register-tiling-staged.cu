// register-tiling on shared-memory tiled products (the model's staged
// MatrixProduct): the rewrites, made from the global operands the tiles
// stand for, compute what the originals compute, on the GPU, with the
// shrunken grid the proposal's spec change gives (and, for the block-tiled
// ones, the original grid):
// - PMPP's kernel, no bounds checks, launched as its spec says (Width / 16
//   blocks of 16 a side): Width 256 and 1024 (whole tiles) and 1000 (the
//   original covers 992 rows and columns and sums kk < 992; the rest of P
//   stays unwritten, NaN in both);
// - the bounds-checked variant (the fills zero past Width): 129, 1000;
// - a rectangular one (m x k times k x n, threadIdx written directly):
//   129 x 257 x 67 (scalar path), 333 x 516 x 260 (float4 path).
// Each output sums the same products in the same order (kk ascending; the
// padding adds exact zeros), so the results agree to float rounding or
// better. --bench times PMPP's kernel and its rewrites at 4096^3.
// REQUIRES: gpu, cuda
// RUN: rm -rf %t.d && mkdir -p %t.d
// RUN: forge-port propose %S/../Inputs/rules/staged_mm.cu --spec %S/../Inputs/rules/staged_mm.json --rules=register-tiling --format=json > %t.d/pmpp.json
// RUN: forge-port propose %S/../Inputs/rules/staged_mm.cu --kernel pmpp_checked --block 16,16 --rules=register-tiling --format=json > %t.d/checked.json
// RUN: forge-port propose %S/../Inputs/rules/staged_mm.cu --kernel rect --block 16,16 --rules=register-tiling --format=json > %t.d/rect.json
// RUN: %python %S/../../Inputs/apply_proposal.py %t.d/pmpp.json 0 %S/../Inputs/rules/staged_mm.cu > %t.d/pmpp.0.cu
// RUN: %python %S/../../Inputs/apply_proposal.py %t.d/pmpp.json 1 %S/../Inputs/rules/staged_mm.cu > %t.d/pmpp.1.cu
// RUN: %python %S/../../Inputs/apply_proposal.py %t.d/pmpp.json 2 %S/../Inputs/rules/staged_mm.cu > %t.d/pmpp.2.cu
// RUN: %python %S/../../Inputs/apply_proposal.py %t.d/pmpp.json 3 %S/../Inputs/rules/staged_mm.cu > %t.d/pmpp.3.cu
// RUN: %python %S/../../Inputs/apply_proposal.py %t.d/pmpp.json 4 %S/../Inputs/rules/staged_mm.cu > %t.d/pmpp.4.cu
// RUN: %python %S/../../Inputs/apply_proposal.py %t.d/checked.json 0 %S/../Inputs/rules/staged_mm.cu > %t.d/checked.0.cu
// RUN: %python %S/../../Inputs/apply_proposal.py %t.d/checked.json 1 %S/../Inputs/rules/staged_mm.cu > %t.d/checked.1.cu
// RUN: %python %S/../../Inputs/apply_proposal.py %t.d/checked.json 2 %S/../Inputs/rules/staged_mm.cu > %t.d/checked.2.cu
// RUN: %python %S/../../Inputs/apply_proposal.py %t.d/checked.json 3 %S/../Inputs/rules/staged_mm.cu > %t.d/checked.3.cu
// RUN: %python %S/../../Inputs/apply_proposal.py %t.d/rect.json 0 %S/../Inputs/rules/staged_mm.cu > %t.d/rect.0.cu
// RUN: %python %S/../../Inputs/apply_proposal.py %t.d/rect.json 1 %S/../Inputs/rules/staged_mm.cu > %t.d/rect.1.cu
// RUN: %python %S/../../Inputs/apply_proposal.py %t.d/rect.json 2 %S/../Inputs/rules/staged_mm.cu > %t.d/rect.2.cu
// RUN: %python %S/../../Inputs/apply_proposal.py %t.d/rect.json 3 %S/../Inputs/rules/staged_mm.cu > %t.d/rect.3.cu
// RUN: FileCheck %s --check-prefix=BT128 --input-file=%t.d/pmpp.0.cu
// BT128: register-tiling: a 128 x 128 tile of C per block of 256 threads, 8 x 8 outputs per thread;
// The spec's 4096^2 fills two waves of 128 x 256 tiles: the third is the wide tile.
// RUN: FileCheck %s --check-prefix=WIDE --input-file=%t.d/pmpp.2.cu
// WIDE: register-tiling: a 128 x 256 tile of C per block of 256 threads, 8 x 16 outputs per thread;
// RUN: %nvcc -arch=native -O3 -I%S/../Inputs/rules -I%t.d %s -o %t.d/check
// RUN: %t.d/check | FileCheck %s --implicit-check-not=MISMATCH --implicit-check-not=FAIL
// CHECK: pmpp 256, block-tiled 128, shrunken grid: ok
// CHECK: pmpp 256, block-tiled 128x256, shrunken grid: ok
// CHECK: pmpp 1000, 4 rows per thread, shrunken grid: ok
// CHECK: pmpp_checked 129, block-tiled 128, original grid: ok
// CHECK: rect 333x516x260, 4 rows per thread, shrunken grid: ok
#include "check.h"
#include <string>
#include <vector>

namespace orig {
#include "staged_mm.cu"
} // namespace orig
namespace pmpp0 {
#include "pmpp.0.cu"
}
namespace pmpp1 {
#include "pmpp.1.cu"
}
namespace pmpp2 {
#include "pmpp.2.cu"
}
namespace pmpp3 {
#include "pmpp.3.cu"
}
namespace pmpp4 {
#include "pmpp.4.cu"
}
namespace checked0 {
#include "checked.0.cu"
}
namespace checked1 {
#include "checked.1.cu"
}
namespace checked2 {
#include "checked.2.cu"
}
namespace checked3 {
#include "checked.3.cu"
}
namespace rect0 {
#include "rect.0.cu"
}
namespace rect1 {
#include "rect.1.cu"
}
namespace rect2 {
#include "rect.2.cu"
}
namespace rect3 {
#include "rect.3.cu"
}

/// Every product here as C (m x n) = A (m x k) * B (k x n) with 16 x 16
/// blocks: a launcher per kernel, the grid given.
using Launch = void (*)(dim3, const float *, const float *, float *, int, int, int);
template <auto K> void square(dim3 g, const float *a, const float *b, float *c, int m, int, int) {
  K<<<g, dim3(16, 16)>>>(a, b, c, m);
}
template <auto K> void rectangular(dim3 g, const float *a, const float *b, float *c, int m, int n, int k) {
  K<<<g, dim3(16, 16)>>>(a, b, c, m, n, k);
}

struct Variant {
  const char *what;
  Launch launch;
  unsigned fx, fy;   // the spec change's division of grid.x and grid.y
  bool originalGrid; // also run with the original grid
};

/// The original on `grid` against every variant on its shrunken grid.
bool products(const std::string &label, Launch original, int m, int n, int k, dim3 grid,
              const std::vector<Variant> &variants, bool bench = false) {
  bool ok = true;
  auto a = check::random<float>(size_t(m) * k, 1), b = check::random<float>(size_t(k) * n, 2);
  float *dA = check::upload(a), *dB = check::upload(b), *dC;
  CK(cudaMalloc(&dC, size_t(m) * n * sizeof(float)));
  auto run = [&](Launch l, dim3 g) {
    check::poison(dC, size_t(m) * n);
    l(g, dA, dB, dC, m, n, k);
    CK(cudaGetLastError());
    return check::download(dC, size_t(m) * n);
  };
  auto ref = run(original, grid);
  double t0 = bench ? check::time([&] { original(grid, dA, dB, dC, m, n, k); }) : 0;
  for (const Variant &v : variants) {
    dim3 shrunk(check::ceilDiv(grid.x, v.fx), check::ceilDiv(grid.y, v.fy));
    std::string base = label + ", " + v.what;
    ok &= check::compare((base + ", shrunken grid").c_str(), ref, run(v.launch, shrunk), 1e-4, 1e-6);
    if (v.originalGrid)
      ok &= check::compare((base + ", original grid").c_str(), ref, run(v.launch, grid), 1e-4, 1e-6);
    if (bench)
      check::report(base.c_str(), t0, check::time([&] { v.launch(shrunk, dA, dB, dC, m, n, k); }));
  }
  if (bench) {
    double flops = 2.0 * m * n * k;
    std::printf("time %s: original %.1f TFLOP/s\n", label.c_str(), flops / (t0 * 1e-3) / 1e12);
  }
  CK(cudaFree(dA));
  CK(cudaFree(dB));
  CK(cudaFree(dC));
  return ok;
}

int main(int argc, char **argv) {
  bool Bench = check::bench(argc, argv);
  bool ok = true;
  std::vector<Variant> pmpp = {{"block-tiled 128", square<pmpp0::pmpp>, 8, 8, false},
                               {"block-tiled 64", square<pmpp1::pmpp>, 4, 4, false},
                               {"block-tiled 128x256", square<pmpp2::pmpp>, 16, 8, false},
                               {"two-level", square<pmpp3::pmpp>, 8, 8, false},
                               {"4 rows per thread", square<pmpp4::pmpp>, 1, 4, false}};
  // PMPP's launch: Width / 16 blocks a side, nothing past them.
  for (int w : {256, 1000, 1024})
    ok &= products("pmpp " + std::to_string(w), square<orig::pmpp>, w, w, w,
                   dim3(w / 16, w / 16), pmpp);
  std::vector<Variant> checked = {{"block-tiled 128", square<checked0::pmpp_checked>, 8, 8, true},
                                  {"block-tiled 64", square<checked1::pmpp_checked>, 4, 4, true},
                                  {"two-level", square<checked2::pmpp_checked>, 8, 8, true},
                                  {"4 rows per thread", square<checked3::pmpp_checked>, 1, 4, true}};
  for (int w : {129, 1000})
    ok &= products("pmpp_checked " + std::to_string(w), square<orig::pmpp_checked>, w, w, w,
                   dim3(check::ceilDiv(w, 16), check::ceilDiv(w, 16)), checked);
  std::vector<Variant> rect = {{"block-tiled 128", rectangular<rect0::rect>, 8, 8, true},
                               {"block-tiled 64", rectangular<rect1::rect>, 4, 4, true},
                               {"two-level", rectangular<rect2::rect>, 8, 8, true},
                               {"4 rows per thread", rectangular<rect3::rect>, 1, 4, true}};
  struct Sizes { int m, n, k; };
  for (Sizes s : {Sizes{129, 257, 67}, Sizes{333, 516, 260}})
    ok &= products("rect " + std::to_string(s.m) + "x" + std::to_string(s.n) + "x" +
                       std::to_string(s.k),
                   rectangular<orig::rect>, s.m, s.n, s.k,
                   dim3(check::ceilDiv(s.n, 16), check::ceilDiv(s.m, 16)), rect);
  if (Bench)
    products("pmpp 4096^3", square<orig::pmpp>, 4096, 4096, 4096, dim3(256, 256), pmpp, true);
  std::printf("%s\n", ok ? "ALL OK" : "FAIL");
  return ok ? 0 : 1;
}
