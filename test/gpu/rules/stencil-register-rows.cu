// The stencil-register-rows rule's rewrites compute bitwise what the
// originals compute, on the GPU. The streamed rows (stream0.cu: 8 x 2
// outputs per thread, stream1.cu: 4 x 2) of every kernel of stencil_rows.cu
// with a loop over the rows (all but laplace5) and of the suite's 5x5
// convolution (conv2d_5x5.cu) run on the same images and launch shapes,
// the grid divided by 2 along x and by the rows along y. The whole window: the kernels of stencil_rows.cu (clamped
// blurs in two spellings, zero-padded 3x3 and 7x7 convolutions with a
// filter buffer, a literal-offset 5-point stencil in double, a column
// stencil, a fused separable 7+7 with `continue`), each rewritten with both
// proposals (rows0.cu: the first row count, 4 or 2; rows1.cu: the second,
// 8, 4 or 2; for conv7_zero the third proposal, 4 rows with the filter in
// shared memory). The filters of conv3_zero, conv7_zero and sep7 are
// coefficient buffers, staged once (in registers; conv7's in shared memory
// in rows1.cu), conv7's filter at a misaligned pointer. Zero-padded kernels
// run an interior copy with their border tests known; every image has
// border and interior threads. The image is 1003 x 517 (no
// multiple of any block side or row count) at offset pointers; each
// rewrite runs with blocks 16x16, 32x8, 8x32 and 64x1, on the original
// grid and on the grid divided by its row count, and as a single block on a
// 13 x 7 image. Every output must be bitwise the original's. The check is
// compiled with -fmad=false: with the loop offsets compile-time constants
// nvcc contracts a multiply and an add into an FMA in other places than in
// the original (blur_minmax's weight (dy + 3) gave 1-ulp differences, max
// 3.8e-6, on the H200, 2026-12-01), and the test is about the operations and
// their order, not about where the compiler contracts them.
// REQUIRES: gpu, cuda
// RUN: rm -rf %t.d && mkdir -p %t.d
// RUN: cp %S/../Inputs/rules/stencil_rows.cu %t.d/p0_0.cu && cp %S/../Inputs/rules/stencil_rows.cu %t.d/p1_0.cu
// RUN: forge-port propose %t.d/p0_0.cu --spec %S/../Inputs/rules/stencil_rows/box_blur3.json --rules=stencil-register-rows --format=json > %t.d/p0_box_blur3.json
// RUN: %python %S/../../Inputs/apply_proposal.py %t.d/p0_box_blur3.json 0 %t.d/p0_0.cu > %t.d/p0_1.cu
// RUN: forge-port propose %t.d/p0_1.cu --spec %S/../Inputs/rules/stencil_rows/blur_minmax.json --rules=stencil-register-rows --format=json > %t.d/p0_blur_minmax.json
// RUN: %python %S/../../Inputs/apply_proposal.py %t.d/p0_blur_minmax.json 0 %t.d/p0_1.cu > %t.d/p0_2.cu
// RUN: forge-port propose %t.d/p0_2.cu --spec %S/../Inputs/rules/stencil_rows/conv3_zero.json --rules=stencil-register-rows --format=json > %t.d/p0_conv3_zero.json
// RUN: %python %S/../../Inputs/apply_proposal.py %t.d/p0_conv3_zero.json 0 %t.d/p0_2.cu > %t.d/p0_3.cu
// RUN: forge-port propose %t.d/p0_3.cu --spec %S/../Inputs/rules/stencil_rows/conv7_zero.json --rules=stencil-register-rows --format=json > %t.d/p0_conv7_zero.json
// RUN: %python %S/../../Inputs/apply_proposal.py %t.d/p0_conv7_zero.json 0 %t.d/p0_3.cu > %t.d/p0_4.cu
// RUN: forge-port propose %t.d/p0_4.cu --spec %S/../Inputs/rules/stencil_rows/laplace5.json --rules=stencil-register-rows --format=json > %t.d/p0_laplace5.json
// RUN: %python %S/../../Inputs/apply_proposal.py %t.d/p0_laplace5.json 0 %t.d/p0_4.cu > %t.d/p0_5.cu
// RUN: forge-port propose %t.d/p0_5.cu --spec %S/../Inputs/rules/stencil_rows/column5.json --rules=stencil-register-rows --format=json > %t.d/p0_column5.json
// RUN: %python %S/../../Inputs/apply_proposal.py %t.d/p0_column5.json 0 %t.d/p0_5.cu > %t.d/p0_6.cu
// RUN: forge-port propose %t.d/p0_6.cu --spec %S/../Inputs/rules/stencil_rows/sep7.json --rules=stencil-register-rows --format=json > %t.d/p0_sep7.json
// RUN: %python %S/../../Inputs/apply_proposal.py %t.d/p0_sep7.json 0 %t.d/p0_6.cu > %t.d/p0_7.cu
// RUN: cp %t.d/p0_7.cu %t.d/rows0.cu
// RUN: grep -c "// stencil-register-rows: " %t.d/rows0.cu | FileCheck %s --check-prefix=COUNT
// RUN: forge-port propose %t.d/p1_0.cu --spec %S/../Inputs/rules/stencil_rows/box_blur3.json --rules=stencil-register-rows --format=json > %t.d/p1_box_blur3.json
// RUN: %python %S/../../Inputs/apply_proposal.py %t.d/p1_box_blur3.json 1 %t.d/p1_0.cu > %t.d/p1_1.cu
// RUN: forge-port propose %t.d/p1_1.cu --spec %S/../Inputs/rules/stencil_rows/blur_minmax.json --rules=stencil-register-rows --format=json > %t.d/p1_blur_minmax.json
// RUN: %python %S/../../Inputs/apply_proposal.py %t.d/p1_blur_minmax.json 1 %t.d/p1_1.cu > %t.d/p1_2.cu
// RUN: forge-port propose %t.d/p1_2.cu --spec %S/../Inputs/rules/stencil_rows/conv3_zero.json --rules=stencil-register-rows --format=json > %t.d/p1_conv3_zero.json
// RUN: %python %S/../../Inputs/apply_proposal.py %t.d/p1_conv3_zero.json 1 %t.d/p1_2.cu > %t.d/p1_3.cu
// RUN: forge-port propose %t.d/p1_3.cu --spec %S/../Inputs/rules/stencil_rows/conv7_zero.json --rules=stencil-register-rows --format=json > %t.d/p1_conv7_zero.json
// RUN: %python %S/../../Inputs/apply_proposal.py %t.d/p1_conv7_zero.json 2 %t.d/p1_3.cu > %t.d/p1_4.cu
// RUN: forge-port propose %t.d/p1_4.cu --spec %S/../Inputs/rules/stencil_rows/laplace5.json --rules=stencil-register-rows --format=json > %t.d/p1_laplace5.json
// RUN: %python %S/../../Inputs/apply_proposal.py %t.d/p1_laplace5.json 1 %t.d/p1_4.cu > %t.d/p1_5.cu
// RUN: forge-port propose %t.d/p1_5.cu --spec %S/../Inputs/rules/stencil_rows/column5.json --rules=stencil-register-rows --format=json > %t.d/p1_column5.json
// RUN: %python %S/../../Inputs/apply_proposal.py %t.d/p1_column5.json 1 %t.d/p1_5.cu > %t.d/p1_6.cu
// RUN: forge-port propose %t.d/p1_6.cu --spec %S/../Inputs/rules/stencil_rows/sep7.json --rules=stencil-register-rows --format=json > %t.d/p1_sep7.json
// RUN: %python %S/../../Inputs/apply_proposal.py %t.d/p1_sep7.json 1 %t.d/p1_6.cu > %t.d/p1_7.cu
// RUN: cp %t.d/p1_7.cu %t.d/rows1.cu
// RUN: grep -c "// stencil-register-rows: " %t.d/rows1.cu | FileCheck %s --check-prefix=COUNT
// COUNT: 7
// RUN: grep -c "// Coefficients loaded once: " %t.d/rows0.cu | FileCheck %s --check-prefix=COEFS
// RUN: grep -c "// Coefficients loaded once: " %t.d/rows1.cu | FileCheck %s --check-prefix=COEFS
// COEFS: 3
// RUN: grep -c "__shared__ float f_s\[49\];" %t.d/rows1.cu | FileCheck %s --check-prefix=SHARED
// SHARED: 1
// RUN: cp %S/../Inputs/rules/stencil_rows.cu %t.d/s0_0.cu
// RUN: forge-port propose %t.d/s0_0.cu --spec %S/../Inputs/rules/stencil_rows/box_blur3.json --rules=stencil-register-rows --format=json > %t.d/s0_box_blur3.json
// RUN: %python %S/../../Inputs/apply_proposal.py %t.d/s0_box_blur3.json 2 %t.d/s0_0.cu > %t.d/s0_1.cu
// RUN: forge-port propose %t.d/s0_1.cu --spec %S/../Inputs/rules/stencil_rows/blur_minmax.json --rules=stencil-register-rows --format=json > %t.d/s0_blur_minmax.json
// RUN: %python %S/../../Inputs/apply_proposal.py %t.d/s0_blur_minmax.json 2 %t.d/s0_1.cu > %t.d/s0_2.cu
// RUN: forge-port propose %t.d/s0_2.cu --spec %S/../Inputs/rules/stencil_rows/conv3_zero.json --rules=stencil-register-rows --format=json > %t.d/s0_conv3_zero.json
// RUN: %python %S/../../Inputs/apply_proposal.py %t.d/s0_conv3_zero.json 2 %t.d/s0_2.cu > %t.d/s0_3.cu
// RUN: forge-port propose %t.d/s0_3.cu --spec %S/../Inputs/rules/stencil_rows/conv7_zero.json --rules=stencil-register-rows --format=json > %t.d/s0_conv7_zero.json
// RUN: %python %S/../../Inputs/apply_proposal.py %t.d/s0_conv7_zero.json 3 %t.d/s0_3.cu > %t.d/s0_4.cu
// RUN: forge-port propose %t.d/s0_4.cu --spec %S/../Inputs/rules/stencil_rows/column5.json --rules=stencil-register-rows --format=json > %t.d/s0_column5.json
// RUN: %python %S/../../Inputs/apply_proposal.py %t.d/s0_column5.json 2 %t.d/s0_4.cu > %t.d/s0_5.cu
// RUN: forge-port propose %t.d/s0_5.cu --spec %S/../Inputs/rules/stencil_rows/sep7.json --rules=stencil-register-rows --format=json > %t.d/s0_sep7.json
// RUN: %python %S/../../Inputs/apply_proposal.py %t.d/s0_sep7.json 2 %t.d/s0_5.cu > %t.d/s0_6.cu
// RUN: cp %t.d/s0_6.cu %t.d/stream0.cu
// RUN: grep -c "// stencil-register-rows (streaming): 8 x 2 outputs" %t.d/stream0.cu | FileCheck %s --check-prefix=STREAMS
// RUN: cp %S/../Inputs/rules/stencil_rows.cu %t.d/s1_0.cu
// RUN: forge-port propose %t.d/s1_0.cu --spec %S/../Inputs/rules/stencil_rows/box_blur3.json --rules=stencil-register-rows --format=json > %t.d/s1_box_blur3.json
// RUN: %python %S/../../Inputs/apply_proposal.py %t.d/s1_box_blur3.json 3 %t.d/s1_0.cu > %t.d/s1_1.cu
// RUN: forge-port propose %t.d/s1_1.cu --spec %S/../Inputs/rules/stencil_rows/blur_minmax.json --rules=stencil-register-rows --format=json > %t.d/s1_blur_minmax.json
// RUN: %python %S/../../Inputs/apply_proposal.py %t.d/s1_blur_minmax.json 3 %t.d/s1_1.cu > %t.d/s1_2.cu
// RUN: forge-port propose %t.d/s1_2.cu --spec %S/../Inputs/rules/stencil_rows/conv3_zero.json --rules=stencil-register-rows --format=json > %t.d/s1_conv3_zero.json
// RUN: %python %S/../../Inputs/apply_proposal.py %t.d/s1_conv3_zero.json 3 %t.d/s1_2.cu > %t.d/s1_3.cu
// RUN: forge-port propose %t.d/s1_3.cu --spec %S/../Inputs/rules/stencil_rows/conv7_zero.json --rules=stencil-register-rows --format=json > %t.d/s1_conv7_zero.json
// RUN: %python %S/../../Inputs/apply_proposal.py %t.d/s1_conv7_zero.json 4 %t.d/s1_3.cu > %t.d/s1_4.cu
// RUN: forge-port propose %t.d/s1_4.cu --spec %S/../Inputs/rules/stencil_rows/column5.json --rules=stencil-register-rows --format=json > %t.d/s1_column5.json
// RUN: %python %S/../../Inputs/apply_proposal.py %t.d/s1_column5.json 3 %t.d/s1_4.cu > %t.d/s1_5.cu
// RUN: forge-port propose %t.d/s1_5.cu --spec %S/../Inputs/rules/stencil_rows/sep7.json --rules=stencil-register-rows --format=json > %t.d/s1_sep7.json
// RUN: %python %S/../../Inputs/apply_proposal.py %t.d/s1_sep7.json 3 %t.d/s1_5.cu > %t.d/s1_6.cu
// RUN: cp %t.d/s1_6.cu %t.d/stream1.cu
// RUN: grep -c "// stencil-register-rows (streaming): 4 x 2 outputs" %t.d/stream1.cu | FileCheck %s --check-prefix=STREAMS
// STREAMS: 6
// RUN: forge-port propose %S/../Inputs/rules/conv2d_5x5.cu --spec %S/../../passes/smem-stencil-tiling/Inputs/conv2d_5x5.json --rules=stencil-register-rows --format=json > %t.d/c5.json
// RUN: %python %S/../../Inputs/apply_proposal.py %t.d/c5.json 2 %S/../Inputs/rules/conv2d_5x5.cu > %t.d/stream5_0.cu
// RUN: %python %S/../../Inputs/apply_proposal.py %t.d/c5.json 3 %S/../Inputs/rules/conv2d_5x5.cu > %t.d/stream5_1.cu
// RUN: grep -c "// stencil-register-rows (streaming): " %t.d/stream5_0.cu %t.d/stream5_1.cu | FileCheck %s --check-prefix=STREAM5
// STREAM5: stream5_0.cu:1
// STREAM5: stream5_1.cu:1
// 16-byte window rows, 4 x 4 outputs per thread (the last proposal of the
// zero-padded kernels: conv3_zero, conv7_zero, sep7 in stream2.cu, the 5x5
// in stream5_2.cu): on a 1004-wide image at a 16-byte aligned pointer
// (every row aligned: the float4 path), a 1003-wide one (every fourth row
// aligned: both paths in one thread), and at an offset pointer (none).
// RUN: cp %S/../Inputs/rules/stencil_rows.cu %t.d/v_0.cu
// RUN: forge-port propose %t.d/v_0.cu --spec %S/../Inputs/rules/stencil_rows/conv3_zero.json --rules=stencil-register-rows --format=json > %t.d/v_conv3_zero.json
// RUN: %python %S/../../Inputs/apply_proposal.py %t.d/v_conv3_zero.json 4 %t.d/v_0.cu > %t.d/v_1.cu
// RUN: forge-port propose %t.d/v_1.cu --spec %S/../Inputs/rules/stencil_rows/conv7_zero.json --rules=stencil-register-rows --format=json > %t.d/v_conv7_zero.json
// RUN: %python %S/../../Inputs/apply_proposal.py %t.d/v_conv7_zero.json 5 %t.d/v_1.cu > %t.d/v_2.cu
// RUN: forge-port propose %t.d/v_2.cu --spec %S/../Inputs/rules/stencil_rows/sep7.json --rules=stencil-register-rows --format=json > %t.d/v_sep7.json
// RUN: %python %S/../../Inputs/apply_proposal.py %t.d/v_sep7.json 4 %t.d/v_2.cu > %t.d/stream2.cu
// RUN: %python %S/../../Inputs/apply_proposal.py %t.d/c5.json 4 %S/../Inputs/rules/conv2d_5x5.cu > %t.d/stream5_2.cu
// RUN: grep -c "reinterpret_cast<const float4 \*>" %t.d/stream2.cu %t.d/stream5_2.cu | FileCheck %s --check-prefix=VLOADS
// VLOADS: stream2.cu:3
// VLOADS: stream5_2.cu:1
// RUN: %nvcc -arch=native -O3 -fmad=false -I%S/../Inputs/rules -I%t.d %s -o %t.d/check
// RUN: %t.d/check | FileCheck %s --implicit-check-not=MISMATCH --implicit-check-not=FAIL
// CHECK-COUNT-352: ok max_abs_err 0 rel_l2 0
// CHECK: PASS
#include "check.h"

#include <string>

namespace orig {
#include "stencil_rows.cu"
} // namespace orig
namespace rows0 {
#include "rows0.cu"
} // namespace rows0
namespace rows1 {
#include "rows1.cu"
} // namespace rows1
namespace stream0 {
#include "stream0.cu"
} // namespace stream0
namespace stream1 {
#include "stream1.cu"
} // namespace stream1
namespace orig5 {
#include "conv2d_5x5.cu"
} // namespace orig5
namespace stream5_0 {
#include "stream5_0.cu"
} // namespace stream5_0
namespace stream5_1 {
#include "stream5_1.cu"
} // namespace stream5_1
namespace stream2 {
#include "stream2.cu"
} // namespace stream2
namespace stream5_2 {
#include "stream5_2.cu"
} // namespace stream5_2

namespace {

bool ok = true;

template <typename T> void same(const std::string &what, const std::vector<T> &ref,
                                const std::vector<T> &got) {
  ok &= check::compare(what.c_str(), ref, got, 0, 0);
  if (std::memcmp(ref.data(), got.data(), ref.size() * sizeof(T))) {
    std::printf("%s: MISMATCH in the bits\n", what.c_str());
    ok = false;
  }
}

/// Runs Orig and the two rewrites (with Rows0 x Cols0, Rows1 x Cols1
/// outputs per thread) of one kernel; Launch(kernel, grid, block, in, out,
/// w, h) launches one.
template <typename T, typename K, typename L>
void cases(const char *name, K Orig, K Cand0, K Cand1, int Rows0, int Cols0, int Rows1, int Cols1,
           L Launch) {
  for (int small = 0; small < 2; ++small) {
    int w = small ? 13 : 1003, h = small ? 7 : 517;
    size_t n = size_t(w) * h;
    // Offset pointers: the input one element, the output three past an
    // allocation's start.
    auto a = check::random<T>(n + 1, 7);
    T *dA = check::upload(a), *dOut;
    CK(cudaMalloc(&dOut, (n + 3) * sizeof(T)));
    const T *in = dA + 1;
    T *out = dOut + 3;
    auto run = [&](K k, dim3 grid, dim3 block) {
      check::poison(out, n);
      Launch(k, grid, block, in, out, w, h);
      CK(cudaGetLastError());
      CK(cudaDeviceSynchronize());
      return check::download(out, n);
    };
    std::vector<dim3> blocks = {dim3(16, 16), dim3(32, 8), dim3(8, 32), dim3(64, 1)};
    if (small)
      blocks = {dim3(16, 16)};
    for (dim3 b : blocks) {
      dim3 g(check::ceilDiv(w, b.x), check::ceilDiv(h, b.y));
      auto ref = run(Orig, g, b);
      for (int c = 0; c < 2; ++c) {
        K cand = c ? Cand1 : Cand0;
        int rows = c ? Rows1 : Rows0, cols = c ? Cols1 : Cols0;
        char what[160];
        if (small) {
          std::snprintf(what, sizeof what, "%s R=%d C=%d one block on %dx%d", name, rows, cols,
                        w, h);
          same(what, ref, run(cand, dim3(1, 1), b));
          continue;
        }
        std::snprintf(what, sizeof what, "%s R=%d C=%d %ux%u original grid", name, rows, cols,
                      b.x, b.y);
        same(what, ref, run(cand, g, b));
        std::snprintf(what, sizeof what, "%s R=%d C=%d %ux%u grid for R x C", name, rows, cols,
                      b.x, b.y);
        same(what, ref,
             run(cand, dim3(check::ceilDiv(g.x, cols), check::ceilDiv(g.y, rows)), b));
      }
    }
    CK(cudaFree(dA));
    CK(cudaFree(dOut));
  }
}

template <typename T, typename K, typename L>
void cases(const char *name, K Orig, K Cand0, K Cand1, int Rows0, int Rows1, L Launch) {
  cases<T>(name, Orig, Cand0, Cand1, Rows0, 1, Rows1, 1, Launch);
}

/// The original against the rewrite with 16-byte window rows (4 x 4
/// outputs per thread) on images whose rows are all, some or none 16-byte
/// aligned; Launch as for cases().
template <typename K, typename L> void vectorCases(const char *name, K Orig, K Cand, L Launch) {
  struct Image {
    int w, h, skew;
  };
  for (Image im : {Image{1004, 517, 0}, Image{1003, 517, 0}, Image{1004, 517, 1},
                   Image{13, 7, 0}}) {
    size_t n = size_t(im.w) * im.h;
    auto a = check::random<float>(n + 4, 9);
    float *dA = check::upload(a), *dOut;
    CK(cudaMalloc(&dOut, (n + 3) * sizeof(float)));
    const float *in = dA + im.skew; // cudaMalloc'd: 256-byte aligned
    float *out = dOut + 3;
    auto run = [&](K k, dim3 grid, dim3 block) {
      check::poison(out, n);
      Launch(k, grid, block, in, out, im.w, im.h);
      CK(cudaGetLastError());
      CK(cudaDeviceSynchronize());
      return check::download(out, n);
    };
    bool small = im.w == 13;
    std::vector<dim3> blocks = {dim3(16, 16), dim3(32, 8), dim3(8, 32), dim3(64, 1)};
    if (small)
      blocks = {dim3(16, 16)};
    for (dim3 b : blocks) {
      dim3 g(check::ceilDiv(im.w, b.x), check::ceilDiv(im.h, b.y));
      auto ref = run(Orig, g, b);
      char what[160];
      if (small) {
        std::snprintf(what, sizeof what, "%s 4x4 16-byte rows one block on %dx%d", name, im.w,
                      im.h);
        same(what, ref, run(Cand, dim3(1, 1), b));
        continue;
      }
      std::snprintf(what, sizeof what, "%s 4x4 16-byte rows %ux%u original grid, %dx%d skew %d",
                    name, b.x, b.y, im.w, im.h, im.skew);
      same(what, ref, run(Cand, g, b));
      std::snprintf(what, sizeof what, "%s 4x4 16-byte rows %ux%u grid for 4 x 4, %dx%d skew %d",
                    name, b.x, b.y, im.w, im.h, im.skew);
      same(what, ref, run(Cand, dim3(check::ceilDiv(g.x, 4), check::ceilDiv(g.y, 4)), b));
    }
    CK(cudaFree(dA));
    CK(cudaFree(dOut));
  }
}

} // namespace

int main() {
  using F2 = void (*)(const float *, float *, int, int);
  using FF = void (*)(const float *, const float *, float *, int, int);
  using D2 = void (*)(const double *, double *, int, int);
  auto plain = [](auto k, dim3 g, dim3 b, auto in, auto out, int w, int h) {
    k<<<g, b>>>(in, out, w, h);
  };
  cases<float, F2>("box_blur3", orig::box_blur3, rows0::box_blur3, rows1::box_blur3, 4, 8, plain);
  cases<float, F2>("blur_minmax", orig::blur_minmax, rows0::blur_minmax, rows1::blur_minmax, 4, 8,
                   plain);
  auto filt3 = check::random<float>(9, 3), filt7 = check::random<float>(50, 4);
  float *f3 = check::upload(filt3), *f7 = check::upload(filt7) + 1;
  cases<float, FF>("conv3_zero", orig::conv3_zero, rows0::conv3_zero, rows1::conv3_zero, 4, 8,
                   [&](FF k, dim3 g, dim3 b, const float *in, float *out, int w, int h) {
                     k<<<g, b>>>(in, f3, out, w, h);
                   });
  cases<float, FF>("conv7_zero", orig::conv7_zero, rows0::conv7_zero, rows1::conv7_zero, 4, 4,
                   [&](FF k, dim3 g, dim3 b, const float *in, float *out, int w, int h) {
                     k<<<g, b>>>(in, f7, out, w, h);
                   });
  using FS = void (*)(const float *, const float *, const float *, float *, int, int);
  auto fx = check::random<float>(7, 5), fy = check::random<float>(7, 6);
  float *dfx = check::upload(fx), *dfy = check::upload(fy);
  cases<float, FS>("sep7", orig::sep7, rows0::sep7, rows1::sep7, 4, 2,
                   [&](FS k, dim3 g, dim3 b, const float *in, float *out, int w, int h) {
                     k<<<g, b>>>(in, dfx, dfy, out, w, h);
                   });
  cases<double, D2>("laplace5", orig::laplace5, rows0::laplace5, rows1::laplace5, 4, 8, plain);
  cases<float, F2>("column5", orig::column5, rows0::column5, rows1::column5, 4, 8, plain);
  // The streamed rows: 8 x 2 (stream0) and 4 x 2 (stream1) outputs per
  // thread; the original grid, and the grid divided by 2 along x and by
  // the rows along y.
  cases<float, F2>("box_blur3 streamed", orig::box_blur3, stream0::box_blur3, stream1::box_blur3,
                   8, 2, 4, 2, plain);
  cases<float, F2>("blur_minmax streamed", orig::blur_minmax, stream0::blur_minmax,
                   stream1::blur_minmax, 8, 2, 4, 2, plain);
  cases<float, FF>("conv3_zero streamed", orig::conv3_zero, stream0::conv3_zero,
                   stream1::conv3_zero, 8, 2, 4, 2,
                   [&](FF k, dim3 g, dim3 b, const float *in, float *out, int w, int h) {
                     k<<<g, b>>>(in, f3, out, w, h);
                   });
  cases<float, FF>("conv7_zero streamed", orig::conv7_zero, stream0::conv7_zero,
                   stream1::conv7_zero, 8, 2, 4, 2,
                   [&](FF k, dim3 g, dim3 b, const float *in, float *out, int w, int h) {
                     k<<<g, b>>>(in, f7, out, w, h);
                   });
  cases<float, FS>("sep7 streamed", orig::sep7, stream0::sep7, stream1::sep7, 8, 2, 4, 2,
                   [&](FS k, dim3 g, dim3 b, const float *in, float *out, int w, int h) {
                     k<<<g, b>>>(in, dfx, dfy, out, w, h);
                   });
  cases<float, F2>("column5 streamed", orig::column5, stream0::column5, stream1::column5, 8, 2,
                   4, 2, plain);
  // The suite's 5x5 convolution takes (h, w); its filter at a misaligned
  // pointer.
  auto filt5 = check::random<float>(26, 8);
  float *f5 = check::upload(filt5) + 1;
  cases<float, FF>("conv2d_5x5 streamed", orig5::conv2d_5x5, stream5_0::conv2d_5x5,
                   stream5_1::conv2d_5x5, 8, 2, 4, 2,
                   [&](FF k, dim3 g, dim3 b, const float *in, float *out, int w, int h) {
                     k<<<g, b>>>(in, f5, out, h, w);
                   });
  // 16-byte window rows.
  vectorCases<FF>("conv3_zero", orig::conv3_zero, stream2::conv3_zero,
                  [&](FF k, dim3 g, dim3 b, const float *in, float *out, int w, int h) {
                    k<<<g, b>>>(in, f3, out, w, h);
                  });
  vectorCases<FF>("conv7_zero", orig::conv7_zero, stream2::conv7_zero,
                  [&](FF k, dim3 g, dim3 b, const float *in, float *out, int w, int h) {
                    k<<<g, b>>>(in, f7, out, w, h);
                  });
  vectorCases<FS>("sep7", orig::sep7, stream2::sep7,
                  [&](FS k, dim3 g, dim3 b, const float *in, float *out, int w, int h) {
                    k<<<g, b>>>(in, dfx, dfy, out, w, h);
                  });
  vectorCases<FF>("conv2d_5x5", orig5::conv2d_5x5, stream5_2::conv2d_5x5,
                  [&](FF k, dim3 g, dim3 b, const float *in, float *out, int w, int h) {
                    k<<<g, b>>>(in, f5, out, h, w);
                  });
  std::printf(ok ? "PASS\n" : "FAIL\n");
  return ok ? 0 : 1;
}
