// vectorize on grid-stride while loops (CUDA by Example's spelling), with a
// run-time count and a macro count: on the GPU the rewrites compute
// bitwise what the originals compute, for counts that are not multiples of
// 4 or of the block (1, 5, 1003, 1000003; the macro's 1000003), pointers
// offset by 0 (aligned: int4 / float4) and 1 element (the scalar loop),
// and grids of 128 blocks (the book's), a quarter of them (vectorize's
// spec) and 1 block. Outputs start as NaN bytes; in-out buffers from the
// same random values.
// REQUIRES: gpu, cuda
// RUN: rm -rf %t.d && mkdir -p %t.d
// RUN: forge-port propose %S/../Inputs/rules/while_maps.cu --kernel add_while --block 128 --rules=vectorize --apply -o %t.d/w1.cu
// RUN: forge-port propose %t.d/w1.cu --kernel saxpy_macro --block 128 --rules=vectorize --apply -o %t.d/while_maps.vec.cu
// RUN: grep -c "forge_vectors" %t.d/while_maps.vec.cu | FileCheck %s --check-prefix=COUNT
// COUNT: 6
// RUN: %nvcc -arch=native -O3 -I%S/../Inputs/rules -I%t.d %s -o %t.d/check
// RUN: %t.d/check | FileCheck %s --implicit-check-not=MISMATCH --implicit-check-not=FAIL
// CHECK: add_while n=1000003 +0 grid 128: ok max_abs_err 0 rel_l2 0
// CHECK: add_while n=1000003 +1 grid 1: ok max_abs_err 0 rel_l2 0
// CHECK: saxpy_macro +0 grid 32: ok max_abs_err 0 rel_l2 0
// CHECK: saxpy_macro +1 grid 128: ok max_abs_err 0 rel_l2 0
// CHECK: PASS
#include "check.h"

namespace orig {
#include "while_maps.cu"
} // namespace orig
#undef WHILE_MAPS_N
namespace v1 {
#include "while_maps.vec.cu"
} // namespace v1

int main() {
  bool ok = true;
  const unsigned Grids[] = {128, 32, 1};
  for (int n : {1, 5, 1003, 1000003})
    for (int off : {0, 1}) {
      auto ha = check::random<double>(n + 4, 1 + n, -1000, 1000);
      auto hb = check::random<double>(n + 4, 2 + n, -1000, 1000);
      std::vector<int> ia(ha.begin(), ha.end()), ib(hb.begin(), hb.end());
      int *da = check::upload(ia), *db = check::upload(ib), *dc;
      CK(cudaMalloc(&dc, (n + 4) * sizeof(int)));
      for (unsigned g : Grids) {
        check::poison(dc, n + 4);
        orig::add_while<<<g, 128>>>(da + off, db + off, dc + off, n);
        CK(cudaDeviceSynchronize());
        auto ref = check::download(dc, n + 4);
        check::poison(dc, n + 4);
        v1::add_while<<<g, 128>>>(da + off, db + off, dc + off, n);
        CK(cudaGetLastError());
        CK(cudaDeviceSynchronize());
        auto got = check::download(dc, n + 4);
        char what[96];
        std::snprintf(what, sizeof what, "add_while n=%d +%d grid %u", n, off, g);
        ok &= check::compare(what, ref, got, 0, 0);
      }
      CK(cudaFree(da));
      CK(cudaFree(db));
      CK(cudaFree(dc));
    }
  const int N = 1000003;
  for (int off : {0, 1}) {
    auto hx = check::random<float>(N + 4, 7);
    auto hy = check::random<float>(N + 4, 8);
    float *dx = check::upload(hx), *dy;
    CK(cudaMalloc(&dy, (N + 4) * sizeof(float)));
    for (unsigned g : Grids) {
      CK(cudaMemcpy(dy, hy.data(), (N + 4) * sizeof(float), cudaMemcpyHostToDevice));
      orig::saxpy_macro<<<g, 128>>>(2.5f, dx + off, dy + off);
      CK(cudaDeviceSynchronize());
      auto ref = check::download(dy, N + 4);
      CK(cudaMemcpy(dy, hy.data(), (N + 4) * sizeof(float), cudaMemcpyHostToDevice));
      v1::saxpy_macro<<<g, 128>>>(2.5f, dx + off, dy + off);
      CK(cudaGetLastError());
      CK(cudaDeviceSynchronize());
      auto got = check::download(dy, N + 4);
      char what[96];
      std::snprintf(what, sizeof what, "saxpy_macro +%d grid %u", off, g);
      ok &= check::compare(what, ref, got, 0, 0);
    }
    CK(cudaFree(dx));
    CK(cudaFree(dy));
  }
  std::printf("%s\n", ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
