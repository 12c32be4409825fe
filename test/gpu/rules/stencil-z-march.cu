// The stencil-z-march rule's rewrites compute bitwise what the originals
// compute, on the GPU. Every kernel of z_march.cu (the 7-point Laplacian
// with an early-exit guard and a size_t plane, the (k * ny + j) * nx + i
// spelling under an enclosing if, an index macro with two early returns, a
// 3x3x3 box with clamps on all three axes written with loops, a radius-2
// star with a long long plane stride) is rewritten for 32 x 8 blocks
// (zm32.cu) and for 16 x 16 blocks (zm16.cu). Each runs on volumes whose
// sides are multiples of no block side (67 x 37 x 19, 5 x 3 x 4, and 40 x 9
// x 1, where the loop runs at most once or never), at offset pointers (the
// input one element past its allocation's start, the output three), with
// blocks 32x8, 16x16 (one of them the tiled path, the other the fallback),
// 8x4 and 64x2 (the fallback), and a grid one block larger than needed along
// x (blocks with no thread inside the volume still load and wait). The
// whole output allocation, poisoned with NaN bytes first, must be bitwise
// the original's. -fmad=false: the test is about the operations and their
// order, not about where nvcc contracts them.
// REQUIRES: gpu, cuda
// RUN: rm -rf %t.d && mkdir -p %t.d
// RUN: cp %S/../Inputs/rules/z_march.cu %t.d/a0.cu
// RUN: forge-port propose %t.d/a0.cu --kernel lap3d --block 32,8 --rules=stencil-z-march --apply -o %t.d/a1.cu
// RUN: forge-port propose %t.d/a1.cu --kernel lap3d_idx --block 32,8 --rules=stencil-z-march --apply -o %t.d/a2.cu
// RUN: forge-port propose %t.d/a2.cu --kernel lap3d_macro --block 32,8 --rules=stencil-z-march --apply -o %t.d/a3.cu
// RUN: forge-port propose %t.d/a3.cu --kernel box27 --block 32,8 --rules=stencil-z-march --apply -o %t.d/a4.cu
// RUN: forge-port propose %t.d/a4.cu --kernel star13 --block 32,8 --rules=stencil-z-march --apply -o %t.d/a5.cu
// RUN: cp %t.d/a5.cu %t.d/zm32.cu
// RUN: grep -c "// stencil-z-march: each thread keeps" %t.d/zm32.cu | FileCheck %s --check-prefix=COUNT
// RUN: cp %S/../Inputs/rules/z_march.cu %t.d/b0.cu
// RUN: forge-port propose %t.d/b0.cu --kernel lap3d --block 16,16 --rules=stencil-z-march --apply -o %t.d/b1.cu
// RUN: forge-port propose %t.d/b1.cu --kernel lap3d_idx --block 16,16 --rules=stencil-z-march --apply -o %t.d/b2.cu
// RUN: forge-port propose %t.d/b2.cu --kernel lap3d_macro --block 16,16 --rules=stencil-z-march --apply -o %t.d/b3.cu
// RUN: forge-port propose %t.d/b3.cu --kernel box27 --block 16,16 --rules=stencil-z-march --apply -o %t.d/b4.cu
// RUN: forge-port propose %t.d/b4.cu --kernel star13 --block 16,16 --rules=stencil-z-march --apply -o %t.d/b5.cu
// RUN: cp %t.d/b5.cu %t.d/zm16.cu
// RUN: grep -c "// stencil-z-march: each thread keeps" %t.d/zm16.cu | FileCheck %s --check-prefix=COUNT
// COUNT: 5
// RUN: %nvcc -arch=native -O3 -fmad=false -I%S/../Inputs/rules -I%t.d %s -o %t.d/check
// RUN: %t.d/check | FileCheck %s --implicit-check-not=MISMATCH --implicit-check-not=FAIL
// CHECK-COUNT-120: ok max_abs_err 0 rel_l2 0
// CHECK: PASS
#include "check.h"

#include <string>

namespace orig {
#include "z_march.cu"
} // namespace orig
namespace zm32 {
#include "zm32.cu"
} // namespace zm32
namespace zm16 {
#include "zm16.cu"
} // namespace zm16

namespace {

using K = void (*)(const float *, float *, int, int, int);
bool ok = true;

/// Runs Orig, Cand32 and Cand16 of one kernel on every volume and block
/// shape and compares whole output allocations bitwise.
void cases(const char *name, K Orig, K Cand32, K Cand16) {
  struct Volume {
    int nx, ny, nz;
  };
  for (Volume v : {Volume{67, 37, 19}, Volume{5, 3, 4}, Volume{40, 9, 1}}) {
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
    for (dim3 b : {dim3(32, 8), dim3(16, 16), dim3(8, 4), dim3(64, 2)}) {
      // One block more than needed along x.
      dim3 g(check::ceilDiv(v.nx, b.x) + 1, check::ceilDiv(v.ny, b.y));
      auto ref = run(Orig, g, b);
      for (int c = 0; c < 2; ++c) {
        auto got = run(c ? Cand16 : Cand32, g, b);
        std::string what = std::string(name) + (c ? " (16x16 rewrite)" : " (32x8 rewrite)") +
                           " " + std::to_string(v.nx) + "x" + std::to_string(v.ny) + "x" +
                           std::to_string(v.nz) + " block " + std::to_string(b.x) + "x" +
                           std::to_string(b.y);
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
  cases("lap3d", orig::lap3d, zm32::lap3d, zm16::lap3d);
  cases("lap3d_idx", orig::lap3d_idx, zm32::lap3d_idx, zm16::lap3d_idx);
  cases("lap3d_macro", orig::lap3d_macro, zm32::lap3d_macro, zm16::lap3d_macro);
  cases("box27", orig::box27, zm32::box27, zm16::box27);
  cases("star13", orig::star13, zm32::star13, zm16::star13);
  std::printf(ok ? "PASS\n" : "FAIL\n");
  return ok ? 0 : 1;
}
