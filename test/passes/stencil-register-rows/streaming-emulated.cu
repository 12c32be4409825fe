// The streamed rows (8 x 2 and 4 x 2 outputs per thread) of every kernel
// of test/gpu/Inputs/rules/stencil_rows.cu that has a loop over the rows,
// run on this machine's CPU: these kernels neither synchronise nor share
// memory, so running their threads one after another computes what the
// GPU computes, and each output must be bitwise the original's (no FMA
// contraction: -ffp-contract=off). Images of 203 x 117 and 13 x 7 at an
// offset pointer; blocks 16x16, 32x8, 8x32, 64x1 and 5x3; the original grid
// and the grid divided by 2 along x and by the rows along y. The filters
// hold infinities: a tap the original skips (outside the image) must be
// skipped by the rewrite too, or inf * 0 gives NaN where the original has
// a number. test/gpu/rules/stencil-register-rows.cu checks the same on a
// GPU.
// RUN: rm -rf %t.d && mkdir -p %t.d
// RUN: cp %S/../../gpu/Inputs/rules/stencil_rows.cu %t.d/s0_0.cu
// RUN: forge-port propose %t.d/s0_0.cu --spec %S/../../gpu/Inputs/rules/stencil_rows/box_blur3.json --rules=stencil-register-rows --format=json > %t.d/s0_box_blur3.json
// RUN: %python %S/../../Inputs/apply_proposal.py %t.d/s0_box_blur3.json 2 %t.d/s0_0.cu > %t.d/s0_1.cu
// RUN: forge-port propose %t.d/s0_1.cu --spec %S/../../gpu/Inputs/rules/stencil_rows/blur_minmax.json --rules=stencil-register-rows --format=json > %t.d/s0_blur_minmax.json
// RUN: %python %S/../../Inputs/apply_proposal.py %t.d/s0_blur_minmax.json 2 %t.d/s0_1.cu > %t.d/s0_2.cu
// RUN: forge-port propose %t.d/s0_2.cu --spec %S/../../gpu/Inputs/rules/stencil_rows/conv3_zero.json --rules=stencil-register-rows --format=json > %t.d/s0_conv3_zero.json
// RUN: %python %S/../../Inputs/apply_proposal.py %t.d/s0_conv3_zero.json 2 %t.d/s0_2.cu > %t.d/s0_3.cu
// RUN: forge-port propose %t.d/s0_3.cu --spec %S/../../gpu/Inputs/rules/stencil_rows/conv7_zero.json --rules=stencil-register-rows --format=json > %t.d/s0_conv7_zero.json
// RUN: %python %S/../../Inputs/apply_proposal.py %t.d/s0_conv7_zero.json 3 %t.d/s0_3.cu > %t.d/s0_4.cu
// RUN: forge-port propose %t.d/s0_4.cu --spec %S/../../gpu/Inputs/rules/stencil_rows/column5.json --rules=stencil-register-rows --format=json > %t.d/s0_column5.json
// RUN: %python %S/../../Inputs/apply_proposal.py %t.d/s0_column5.json 2 %t.d/s0_4.cu > %t.d/s0_5.cu
// RUN: forge-port propose %t.d/s0_5.cu --spec %S/../../gpu/Inputs/rules/stencil_rows/sep7.json --rules=stencil-register-rows --format=json > %t.d/s0_sep7.json
// RUN: %python %S/../../Inputs/apply_proposal.py %t.d/s0_sep7.json 2 %t.d/s0_5.cu > %t.d/s0_6.cu
// RUN: cp %t.d/s0_6.cu %t.d/stream0.cu
// RUN: grep -c "// stencil-register-rows (streaming): 8 x 2 outputs" %t.d/stream0.cu | FileCheck %s --check-prefix=STREAMS
// RUN: cp %S/../../gpu/Inputs/rules/stencil_rows.cu %t.d/s1_0.cu
// RUN: forge-port propose %t.d/s1_0.cu --spec %S/../../gpu/Inputs/rules/stencil_rows/box_blur3.json --rules=stencil-register-rows --format=json > %t.d/s1_box_blur3.json
// RUN: %python %S/../../Inputs/apply_proposal.py %t.d/s1_box_blur3.json 3 %t.d/s1_0.cu > %t.d/s1_1.cu
// RUN: forge-port propose %t.d/s1_1.cu --spec %S/../../gpu/Inputs/rules/stencil_rows/blur_minmax.json --rules=stencil-register-rows --format=json > %t.d/s1_blur_minmax.json
// RUN: %python %S/../../Inputs/apply_proposal.py %t.d/s1_blur_minmax.json 3 %t.d/s1_1.cu > %t.d/s1_2.cu
// RUN: forge-port propose %t.d/s1_2.cu --spec %S/../../gpu/Inputs/rules/stencil_rows/conv3_zero.json --rules=stencil-register-rows --format=json > %t.d/s1_conv3_zero.json
// RUN: %python %S/../../Inputs/apply_proposal.py %t.d/s1_conv3_zero.json 3 %t.d/s1_2.cu > %t.d/s1_3.cu
// RUN: forge-port propose %t.d/s1_3.cu --spec %S/../../gpu/Inputs/rules/stencil_rows/conv7_zero.json --rules=stencil-register-rows --format=json > %t.d/s1_conv7_zero.json
// RUN: %python %S/../../Inputs/apply_proposal.py %t.d/s1_conv7_zero.json 4 %t.d/s1_3.cu > %t.d/s1_4.cu
// RUN: forge-port propose %t.d/s1_4.cu --spec %S/../../gpu/Inputs/rules/stencil_rows/column5.json --rules=stencil-register-rows --format=json > %t.d/s1_column5.json
// RUN: %python %S/../../Inputs/apply_proposal.py %t.d/s1_column5.json 3 %t.d/s1_4.cu > %t.d/s1_5.cu
// RUN: forge-port propose %t.d/s1_5.cu --spec %S/../../gpu/Inputs/rules/stencil_rows/sep7.json --rules=stencil-register-rows --format=json > %t.d/s1_sep7.json
// RUN: %python %S/../../Inputs/apply_proposal.py %t.d/s1_sep7.json 3 %t.d/s1_5.cu > %t.d/s1_6.cu
// RUN: cp %t.d/s1_6.cu %t.d/stream1.cu
// RUN: grep -c "// stencil-register-rows (streaming): 4 x 2 outputs" %t.d/stream1.cu | FileCheck %s --check-prefix=STREAMS
// STREAMS: 6
// The 16-byte window rows (4 x 4 outputs per thread, the last proposal of
// the zero-padded kernels): on images whose rows are all 16-byte aligned
// (204 wide, aligned pointer), some aligned (203 wide), none (an offset
// pointer), so that interior threads take the float4 path, the element
// path, or both in one thread.
// RUN: cp %S/../../gpu/Inputs/rules/stencil_rows.cu %t.d/v_0.cu
// RUN: forge-port propose %t.d/v_0.cu --spec %S/../../gpu/Inputs/rules/stencil_rows/conv3_zero.json --rules=stencil-register-rows --format=json > %t.d/v_conv3_zero.json
// RUN: %python %S/../../Inputs/apply_proposal.py %t.d/v_conv3_zero.json 4 %t.d/v_0.cu > %t.d/v_1.cu
// RUN: forge-port propose %t.d/v_1.cu --spec %S/../../gpu/Inputs/rules/stencil_rows/conv7_zero.json --rules=stencil-register-rows --format=json > %t.d/v_conv7_zero.json
// RUN: %python %S/../../Inputs/apply_proposal.py %t.d/v_conv7_zero.json 5 %t.d/v_1.cu > %t.d/v_2.cu
// RUN: forge-port propose %t.d/v_2.cu --spec %S/../../gpu/Inputs/rules/stencil_rows/sep7.json --rules=stencil-register-rows --format=json > %t.d/v_sep7.json
// RUN: %python %S/../../Inputs/apply_proposal.py %t.d/v_sep7.json 4 %t.d/v_2.cu > %t.d/stream2.cu
// RUN: grep -c "interior rows in 16-byte loads" %t.d/v_conv3_zero.json %t.d/v_conv7_zero.json %t.d/v_sep7.json | FileCheck %s --check-prefix=VEC
// VEC: v_conv3_zero.json:1
// VEC: v_conv7_zero.json:1
// VEC: v_sep7.json:1
// RUN: grep -c "reinterpret_cast<const float4 \*>" %t.d/stream2.cu | FileCheck %s --check-prefix=VLOADS
// VLOADS: 3
// RUN: %clang -x c++ -std=c++17 -O1 -ffp-contract=off -fno-strict-aliasing -w -I%S/../../gpu/Inputs/rules -I%S/Inputs -I%t.d %s -o %t.d/emulate -lstdc++ -lm
// RUN: %t.d/emulate | FileCheck %s --check-prefix=EMU --implicit-check-not=MISMATCH
// EMU-COUNT-225: {{: ok$}}
// EMU: 225 same, 0 differ

#include <cmath>
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <random>
#include <vector>

#include "cpu_grid.h"

namespace orig {
#include "stencil_rows.cu"
} // namespace orig
namespace stream0 {
#include "stream0.cu"
} // namespace stream0
namespace stream1 {
#include "stream1.cu"
} // namespace stream1
namespace stream2 {
#include "stream2.cu"
} // namespace stream2

namespace {

int Same = 0, Differ = 0;

/// Run(c, grid, block, w, h): the outputs of the original (c = 0) or of
/// the rewrite with 8 x 2 (c = 1) or 4 x 2 (c = 2) outputs per thread.
template <typename Run> void cases(const char *Name, Run R) {
  for (int Small = 0; Small < 2; ++Small) {
    int W = Small ? 13 : 203, H = Small ? 7 : 117;
    std::vector<D3> Blocks = {{16, 16}, {32, 8}, {8, 32}, {64, 1}, {5, 3}};
    if (Small)
      Blocks = {{16, 16}};
    for (D3 B : Blocks) {
      D3 G{ceilDiv(W, B.x), ceilDiv(H, B.y)};
      std::vector<float> Ref = R(0, G, B, W, H);
      for (int C = 1; C <= 2; ++C) {
        unsigned Rows = C == 1 ? 8 : 4;
        std::vector<D3> Grids = {G, {ceilDiv(G.x, 2), ceilDiv(G.y, Rows)}};
        if (Small)
          Grids = {{1, 1}};
        for (D3 GG : Grids) {
          std::vector<float> Got = R(C, GG, B, W, H);
          bool Ok = !std::memcmp(Ref.data(), Got.data(), Ref.size() * sizeof(float));
          std::printf("%s %ux2 block %ux%u grid %ux%u on %dx%d: %s\n", Name, Rows, B.x, B.y, GG.x,
                      GG.y, W, H, Ok ? "ok" : "MISMATCH");
          ++(Ok ? Same : Differ);
        }
      }
    }
  }
}

/// Run(c, grid, block, w, h, src): the original (c = 0) or the rewrite
/// with 16-byte window rows and 4 x 4 outputs per thread (c = 1).
template <typename Run> void vectorCases(const char *Name, const float *Aligned, Run R) {
  struct Image {
    int W, H, Skew;
  };
  for (Image I : {Image{204, 117, 0}, Image{203, 117, 0}, Image{204, 117, 1}, Image{13, 7, 0}}) {
    bool Small = I.W == 13;
    const float *Src = Aligned + I.Skew;
    std::vector<D3> Blocks = {{16, 16}, {32, 8}, {8, 32}, {64, 1}, {5, 3}};
    if (Small)
      Blocks = {{16, 16}};
    for (D3 B : Blocks) {
      D3 G{ceilDiv(I.W, B.x), ceilDiv(I.H, B.y)};
      std::vector<float> Ref = R(0, G, B, I.W, I.H, Src);
      std::vector<D3> Grids = {G, {ceilDiv(G.x, 4), ceilDiv(G.y, 4)}};
      if (Small)
        Grids = {{1, 1}};
      for (D3 GG : Grids) {
        std::vector<float> Got = R(1, GG, B, I.W, I.H, Src);
        bool Ok = !std::memcmp(Ref.data(), Got.data(), Ref.size() * sizeof(float));
        std::printf("%s 4x4 in 16-byte rows, block %ux%u grid %ux%u on %dx%d skew %d: %s\n",
                    Name, B.x, B.y, GG.x, GG.y, I.W, I.H, I.Skew, Ok ? "ok" : "MISMATCH");
        ++(Ok ? Same : Differ);
      }
    }
  }
}

} // namespace

int main() {
  std::mt19937 Rng(7);
  std::uniform_real_distribution<float> U(-1, 1);
  std::vector<float> In(210 * 120 + 1), F3(9), F7(49), Fx(7), Fy(7);
  for (std::vector<float> *V : {&In, &F3, &F7, &Fx, &Fy})
    for (float &X : *V)
      X = U(Rng);
  // Corner taps: every border output skips some of them.
  F3[0] = F7[0] = Fx[0] = Fy[6] = INFINITY;
  const float *Src = In.data() + 1;
  auto Out = [](int W, int H) { return std::vector<float>(size_t(W) * H, -7.0f); };
#define CASES(K, ...)                                                                              \
  cases(#K, [&](int C, D3 G, D3 B, int W, int H) {                                                 \
    std::vector<float> O = Out(W, H);                                                              \
    float *Dst = O.data();                                                                         \
    launch(G, B, [&] {                                                                             \
      if (C == 0)                                                                                  \
        orig::K(__VA_ARGS__);                                                                      \
      else if (C == 1)                                                                             \
        stream0::K(__VA_ARGS__);                                                                   \
      else                                                                                         \
        stream1::K(__VA_ARGS__);                                                                   \
    });                                                                                            \
    return O;                                                                                      \
  })
  CASES(box_blur3, Src, Dst, W, H);
  CASES(blur_minmax, Src, Dst, W, H);
  CASES(conv3_zero, Src, F3.data(), Dst, W, H);
  CASES(conv7_zero, Src, F7.data(), Dst, W, H);
  CASES(column5, Src, Dst, W, H);
  CASES(sep7, Src, Fx.data(), Fy.data(), Dst, W, H);
  // A 16-byte aligned start for the 16-byte window rows.
  const float *Aligned = In.data();
  while (reinterpret_cast<unsigned long long>(Aligned) % 16)
    ++Aligned;
#define VCASES(K, ...)                                                                             \
  vectorCases(#K, Aligned, [&](int C, D3 G, D3 B, int W, int H, const float *Src) {                \
    std::vector<float> O = Out(W, H);                                                              \
    float *Dst = O.data();                                                                         \
    launch(G, B, [&] {                                                                             \
      if (C == 0)                                                                                  \
        orig::K(__VA_ARGS__);                                                                      \
      else                                                                                         \
        stream2::K(__VA_ARGS__);                                                                   \
    });                                                                                            \
    return O;                                                                                      \
  })
  VCASES(conv3_zero, Src, F3.data(), Dst, W, H);
  VCASES(conv7_zero, Src, F7.data(), Dst, W, H);
  VCASES(sep7, Src, Fx.data(), Fy.data(), Dst, W, H);
  std::printf("%d same, %d differ\n", Same, Differ);
  return Differ != 0;
}
