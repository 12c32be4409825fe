// plane-loop composed with stencil-z-march computes bitwise what the
// originals compute, on the GPU. Both kernels of plane_loop.cu (one plane
// per block along z: the 7-point Laplacian whose early return tests z
// among x and y, a 3x3x3 box under an enclosing if) are rewritten with
// their specs (32 x 8 blocks, grid.z = nz) into a loop of 16 planes per
// block marched by stencil-z-march. Each runs on volumes whose sides are
// multiples of no block side nor of 16 planes (67 x 37 x 19, 33 x 17 x 40,
// 5 x 3 x 4, 40 x 9 x 1), at offset pointers, with blocks 32x8 (the march)
// and 16x16 and 8x4 (the fallback: the loop over planes alone), with the
// shrunken grid the spec change gives (ceil_div(nz, 16) along z) and with
// the original grid (nz along z: the extra blocks find no plane). The whole
// output allocation, poisoned with NaN bytes first, must be bitwise the
// original's. -fmad=false: the test is about the operations and their
// order, not about where nvcc contracts them.
// REQUIRES: gpu, cuda
// RUN: rm -rf %t.d && mkdir -p %t.d
// RUN: cp %S/../Inputs/rules/plane_loop.cu %t.d/a0.cu
// RUN: forge-port propose %t.d/a0.cu --spec %S/../Inputs/rules/plane_loop_lap_planes.json --rules=plane-loop,stencil-z-march --apply -o %t.d/a1.cu
// RUN: forge-port propose %t.d/a1.cu --spec %S/../Inputs/rules/plane_loop_box_planes.json --rules=plane-loop,stencil-z-march --apply -o %t.d/pl.cu
// RUN: grep -c "// plane-loop: this block walks 16 planes" %t.d/pl.cu | FileCheck %s --check-prefix=LOOPS
// RUN: grep -c "// stencil-z-march: each thread keeps" %t.d/pl.cu | FileCheck %s --check-prefix=MARCH
// Each kernel has the loop twice (the march and the fallback for other
// blocks), and one march.
// LOOPS: 4
// MARCH: 2
// RUN: %nvcc -arch=native -O3 -fmad=false -I%S/../Inputs/rules -I%t.d %s -o %t.d/check
// RUN: %t.d/check | FileCheck %s --implicit-check-not=MISMATCH --implicit-check-not=FAIL
// CHECK-COUNT-48: ok max_abs_err 0 rel_l2 0
// CHECK: PASS
#include "check.h"

#include <cstring>
#include <string>

namespace orig {
#include "plane_loop.cu"
} // namespace orig
namespace pl {
#include "pl.cu"
} // namespace pl

namespace {

using K = void (*)(const float *, float *, int, int, int);
bool ok = true;

void cases(const char *name, K Orig, K Cand) {
  struct Volume {
    int nx, ny, nz;
  };
  for (Volume v : {Volume{67, 37, 19}, Volume{33, 17, 40}, Volume{5, 3, 4}, Volume{40, 9, 1}}) {
    size_t n = size_t(v.nx) * v.ny * v.nz, pad = 5;
    auto a = check::random<float>(n + 1, 11);
    float *dA = check::upload(a), *dOut;
    CK(cudaMalloc(&dOut, (n + 3 + pad) * sizeof(float)));
    auto run = [&](K k, dim3 grid, dim3 block) {
      check::poison(dOut, n + 3 + pad);
      k<<<grid, block>>>(dA + 1, dOut + 3, v.nx, v.ny, v.nz);
      CK(cudaGetLastError());
      CK(cudaDeviceSynchronize());
      return check::download(dOut, n + 3 + pad);
    };
    for (dim3 b : {dim3(32, 8), dim3(16, 16), dim3(8, 4)}) {
      dim3 g(check::ceilDiv(v.nx, b.x), check::ceilDiv(v.ny, b.y), v.nz);
      auto ref = run(Orig, g, b);
      for (unsigned gz : {unsigned(check::ceilDiv(v.nz, 16)), unsigned(v.nz)}) {
        auto got = run(Cand, dim3(g.x, g.y, gz), b);
        std::string what = std::string(name) + " " + std::to_string(v.nx) + "x" +
                           std::to_string(v.ny) + "x" + std::to_string(v.nz) + " block " +
                           std::to_string(b.x) + "x" + std::to_string(b.y) + " grid.z " +
                           std::to_string(gz);
        ok &= check::compare(what.c_str(), ref, got, 0, 0);
        if (std::memcmp(ref.data(), got.data(), ref.size() * sizeof(float))) {
          std::printf("%s: MISMATCH in the bits\n", what.c_str());
          ok = false;
        }
      }
    }
    CK(cudaFree(dA));
    CK(cudaFree(dOut));
  }
}

} // namespace

int main() {
  cases("lap_planes", orig::lap_planes, pl::lap_planes);
  cases("box_planes", orig::box_planes, pl::box_planes);
  std::printf(ok ? "PASS\n" : "FAIL\n");
  return ok ? 0 : 1;
}
