// The coalesced-remap rule's rewrites compute bitwise what the originals
// compute, on the GPU, for sizes that are not multiples of the block, the
// chunk or 4, with pointers offset by one element (not 16-byte aligned):
// 8 floats per thread, 4 doubles per thread bounded by `min(n, start + 4)`,
// and 16 ints per thread over the thread's own range with an early exit.
// The remap keeps each block's elements, so it runs with the original grid
// for several block sizes (256, 128, 96 and 1000 threads, not all multiples
// of 32), and with a grid larger than needed.
// REQUIRES: gpu, cuda
// RUN: rm -rf %t.d && mkdir -p %t.d
// RUN: forge-port propose %S/../Inputs/rules/chunk.cu --kernel scale8 --block 256 --rules=coalesced-remap --apply -o %t.d/c1.cu
// RUN: forge-port propose %t.d/c1.cu --kernel sqrt4 --block 256 --rules=coalesced-remap --apply -o %t.d/c2.cu
// RUN: forge-port propose %t.d/c2.cu --kernel triple16 --block 256 --rules=coalesced-remap --apply -o %t.d/chunk.remapped.cu
// RUN: %nvcc -arch=native -O3 -I%S/../Inputs/rules -I%t.d %s -o %t.d/check
// RUN: %t.d/check | FileCheck %s --implicit-check-not=MISMATCH --implicit-check-not=FAIL
// CHECK: scale8 block 256: ok max_abs_err 0 rel_l2 0
// CHECK: scale8 block 128: ok max_abs_err 0 rel_l2 0
// CHECK: scale8 block 96: ok max_abs_err 0 rel_l2 0
// CHECK: scale8 block 1000: ok max_abs_err 0 rel_l2 0
// CHECK: scale8 grid too large: ok max_abs_err 0 rel_l2 0
// CHECK: sqrt4 block 256: ok max_abs_err 0 rel_l2 0
// CHECK: sqrt4 block 96: ok max_abs_err 0 rel_l2 0
// CHECK: triple16 block 256: ok max_abs_err 0 rel_l2 0
// CHECK: triple16 block 96: ok max_abs_err 0 rel_l2 0
// CHECK: PASS
#include "check.h"

namespace orig {
#include "chunk.cu"
} // namespace orig
namespace cand {
#include "chunk.remapped.cu"
} // namespace cand

int main(int argc, char **argv) {
  bool Bench = check::bench(argc, argv);
  bool ok = true;
  int n = Bench ? (1 << 26) + 3 : 1000003; // not a multiple of 4, 8, 16 or any block
  {
    auto x = check::random<float>(n + 1, 1);
    float *dX = check::upload(x), *dY;
    CK(cudaMalloc(&dY, size_t(n + 1) * sizeof(float)));
    // Offset by one element: neither side is 16-byte aligned.
    const float *in = dX + 1;
    float *out = dY + 1;
    auto run = [&](auto kernel, unsigned grid, unsigned block) {
      check::poison(dY, n + 1);
      kernel<<<grid, block>>>(in, out, 1.5f, n - 1);
      CK(cudaGetLastError());
      return check::download(dY, n + 1);
    };
    auto ref = run(orig::scale8, check::ceilDiv(n - 1, 256 * 8), 256);
    for (unsigned b : {256u, 128u, 96u, 1000u}) {
      char what[64];
      std::snprintf(what, sizeof what, "scale8 block %u", b);
      ok &= check::compare(what, ref, run(cand::scale8, check::ceilDiv(n - 1, b * 8), b), 0, 0);
    }
    ok &= check::compare("scale8 grid too large", ref,
                         run(cand::scale8, check::ceilDiv(n - 1, 256 * 8) + 7, 256), 0, 0);
    if (Bench) {
      unsigned g = check::ceilDiv(n - 1, 256 * 8);
      check::report("scale8 64M f32",
                    check::time([&] { orig::scale8<<<g, 256>>>(in, out, 1.5f, n - 1); }),
                    check::time([&] { cand::scale8<<<g, 256>>>(in, out, 1.5f, n - 1); }));
    }
    CK(cudaFree(dX));
    CK(cudaFree(dY));
  }
  {
    auto a = check::random<double>(n + 1, 2, 0, 4);
    double *dA = check::upload(a), *dB;
    CK(cudaMalloc(&dB, size_t(n + 1) * sizeof(double)));
    auto run = [&](auto kernel, unsigned grid, unsigned block) {
      check::poison(dB, n + 1);
      kernel<<<grid, block>>>(dA + 1, dB + 1, size_t(n));
      CK(cudaGetLastError());
      return check::download(dB, n + 1);
    };
    auto ref = run(orig::sqrt4, check::ceilDiv(n, 256 * 4), 256);
    ok &= check::compare("sqrt4 block 256", ref, run(cand::sqrt4, check::ceilDiv(n, 256 * 4), 256), 0, 0);
    ok &= check::compare("sqrt4 block 96", ref, run(cand::sqrt4, check::ceilDiv(n, 96 * 4), 96), 0, 0);
    if (Bench) {
      unsigned g = check::ceilDiv(n, 256 * 4);
      check::report("sqrt4 64M f64",
                    check::time([&] { orig::sqrt4<<<g, 256>>>(dA + 1, dB + 1, size_t(n)); }),
                    check::time([&] { cand::sqrt4<<<g, 256>>>(dA + 1, dB + 1, size_t(n)); }));
    }
    CK(cudaFree(dA));
    CK(cudaFree(dB));
  }
  {
    auto x = check::random<int>(n, 3, -1000, 1000);
    int *dX = check::upload(x), *dY;
    CK(cudaMalloc(&dY, size_t(n) * sizeof(int)));
    int m = n - 5;
    auto run = [&](auto kernel, unsigned grid, unsigned block) {
      CK(cudaMemset(dY, 0x7F, size_t(n) * sizeof(int)));
      kernel<<<grid, block>>>(dX, dY, m);
      CK(cudaGetLastError());
      return check::download(dY, n);
    };
    auto ref = run(orig::triple16, check::ceilDiv(m, 256 * 16), 256);
    ok &= check::compare("triple16 block 256", ref, run(cand::triple16, check::ceilDiv(m, 256 * 16), 256), 0, 0);
    ok &= check::compare("triple16 block 96", ref, run(cand::triple16, check::ceilDiv(m, 96 * 16), 96), 0, 0);
    CK(cudaFree(dX));
    CK(cudaFree(dY));
  }
  std::printf("%s\n", ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
