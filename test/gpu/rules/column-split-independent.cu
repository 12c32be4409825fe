// column-split's independent form (a column loop that carries nothing, each
// iteration storing its own elements) computes bitwise what the originals
// compute, on the GPU. The kernels of col_independent.cu: a vertical
// 5-point average and an in-place column scaling through a walking pointer
// (nothing follows their loops: no arrival counter), and a doubling whose
// column is then counted done (the last slice, and the last block along y,
// of each column runs that once). Each runs on the grid its SpecChange asks
// for (blockDim.x / 32 times the blocks along x, 1, 3 or 8 blocks along y)
// for blocks of 64, 256 and 1024 threads, and with a block of 100, where
// the device check runs the original body on the original share of the
// grid. Odd sizes (columns not a multiple of 32, fewer rows than slices),
// pointers offset by one element. col_tail runs twice on the same buffers:
// every column's count must be 2 (the counters reset for the next launch).
// `--bench` times col_smooth at 4096 x 16384 (the spec's size) against the
// original with a block of 256.
// REQUIRES: gpu, cuda
// RUN: rm -rf %t.d && mkdir -p %t.d
// RUN: cp %S/../Inputs/rules/col_independent.cu %t.d/a0.cu
// RUN: forge-port propose %t.d/a0.cu --spec %S/../Inputs/rules/col_independent/col_smooth.json --rules=column-split --apply -o %t.d/a1.cu
// RUN: forge-port propose %t.d/a1.cu --spec %S/../Inputs/rules/col_independent/col_scale_walk.json --rules=column-split --apply -o %t.d/a2.cu
// RUN: forge-port propose %t.d/a2.cu --spec %S/../Inputs/rules/col_independent/col_tail.json --rules=column-split --apply -o %t.d/split.cu
// RUN: grep -c "const int slices = blockDim.x / 32;" %t.d/split.cu | FileCheck %s --check-prefix=THREE
// THREE: 3
// RUN: %nvcc -arch=native -O3 -fmad=false -I%S/../Inputs/rules -I%t.d %s -o %t.d/check
// RUN: %t.d/check | FileCheck %s --implicit-check-not=MISMATCH --implicit-check-not=FAIL
// CHECK-COUNT-144: ok max_abs_err 0 rel_l2 0
// CHECK: PASS
#include "check.h"

#include <cstring>
#include <string>

namespace orig {
#include "col_independent.cu"
} // namespace orig
namespace split {
#include "split.cu"
} // namespace split

namespace {

bool ok = true;

template <typename T> void same(const std::string &what, const std::vector<T> &ref,
                                const std::vector<T> &got) {
  ok &= check::identical(what.c_str(), ref, got);
}

} // namespace

int main(int argc, char **argv) {
  struct Size {
    int w, h;
  };
  for (Size s : {Size{4099, 1001}, Size{1027, 3}, Size{33, 200}}) {
    size_t n = size_t(s.w) * s.h;
    auto in = check::random<float>(n + 1, 21);
    auto f = check::random<float>(s.w + 1, 22);
    float *dIn = check::upload(in), *dF = check::upload(f), *dOut, *dA;
    int *dDone;
    CK(cudaMalloc(&dOut, (n + 1) * sizeof(float)));
    CK(cudaMalloc(&dA, (n + 1) * sizeof(float)));
    CK(cudaMalloc(&dDone, (s.w + 1) * sizeof(int)));
    for (unsigned b : {64u, 256u, 1024u, 100u})
      for (unsigned gy : {1u, 3u, 8u}) {
        dim3 g0(check::ceilDiv(s.w, b)), g1(g0.x * (b >= 32 ? b / 32 : 1), gy);
        std::string at = std::to_string(s.w) + "x" + std::to_string(s.h) + " block " +
                         std::to_string(b) + " grid.y " + std::to_string(gy);
        // col_smooth.
        check::poison(dOut, n + 1);
        orig::col_smooth<<<g0, b>>>(dIn + 1, dOut + 1, s.w, s.h);
        CK(cudaDeviceSynchronize());
        auto ref = check::download(dOut, n + 1);
        check::poison(dOut, n + 1);
        split::col_smooth<<<g1, b>>>(dIn + 1, dOut + 1, s.w, s.h);
        CK(cudaGetLastError());
        CK(cudaDeviceSynchronize());
        same("col_smooth " + at, ref, check::download(dOut, n + 1));
        // col_scale_walk, in place.
        CK(cudaMemcpy(dA, in.data(), (n + 1) * sizeof(float), cudaMemcpyHostToDevice));
        orig::col_scale_walk<<<g0, b>>>(dA + 1, dF + 1, s.h, s.w);
        CK(cudaDeviceSynchronize());
        ref = check::download(dA, n + 1);
        CK(cudaMemcpy(dA, in.data(), (n + 1) * sizeof(float), cudaMemcpyHostToDevice));
        split::col_scale_walk<<<g1, b>>>(dA + 1, dF + 1, s.h, s.w);
        CK(cudaGetLastError());
        CK(cudaDeviceSynchronize());
        same("col_scale_walk " + at, ref, check::download(dA, n + 1));
        // col_tail, twice: the rows and a count per column.
        check::poison(dOut, n + 1);
        CK(cudaMemset(dDone, 0, (s.w + 1) * sizeof(int)));
        for (int k = 0; k < 2; ++k)
          orig::col_tail<<<g0, b>>>(dIn + 1, dOut + 1, dDone + 1, s.w, s.h);
        CK(cudaDeviceSynchronize());
        ref = check::download(dOut, n + 1);
        auto refDone = check::download(dDone, s.w + 1);
        check::poison(dOut, n + 1);
        CK(cudaMemset(dDone, 0, (s.w + 1) * sizeof(int)));
        for (int k = 0; k < 2; ++k)
          split::col_tail<<<g1, b>>>(dIn + 1, dOut + 1, dDone + 1, s.w, s.h);
        CK(cudaGetLastError());
        CK(cudaDeviceSynchronize());
        same("col_tail " + at, ref, check::download(dOut, n + 1));
        auto gotDone = check::download(dDone, s.w + 1);
        std::vector<float> rd(refDone.begin(), refDone.end()), gd(gotDone.begin(), gotDone.end());
        same("col_tail done " + at, rd, gd);
      }
    CK(cudaFree(dIn));
    CK(cudaFree(dF));
    CK(cudaFree(dOut));
    CK(cudaFree(dA));
    CK(cudaFree(dDone));
  }
  if (check::bench(argc, argv)) {
    const int w = 4096, h = 16384;
    auto in = check::random<float>(size_t(w) * h, 5);
    float *dIn = check::upload(in), *dOut;
    CK(cudaMalloc(&dOut, in.size() * sizeof(float)));
    double t0 = check::time([&] { orig::col_smooth<<<w / 256, 256>>>(dIn, dOut, w, h); });
    double t1 = check::time([&] { split::col_smooth<<<dim3(w / 1024 * 32, 4), 1024>>>(dIn, dOut, w, h); });
    check::report("col_smooth 4096x16384, block 1024, 4 blocks along y", t0, t1);
    std::printf("col_smooth: original %.0f GB/s, split %.0f GB/s\n", 8.0 * w * h / t0 / 1e6,
                8.0 * w * h / t1 / 1e6);
    CK(cudaFree(dIn));
    CK(cudaFree(dOut));
  }
  std::printf("%s\n", ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
