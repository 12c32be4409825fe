// The streaming form's per-output locals (docs/passes/stencil-register-
// rows.md, "Per-output locals"): those that are functions of the thread's
// position, the parameters and constants are declared again in each
// per-output scope that names them (so that only the accumulators stay live
// across the rows), the others are kept one per output; the interior copy
// runs only when every output passes its guards, and tests none. Checked on
// the text, by nvcc, and by running the kernels thread by thread on the CPU
// against the originals (Inputs/stream_locals.cu: an early return, a
// second guard level, a pure index with a constant divisor, a value read
// per output, and a division by a parameter under the guard, which stays
// per output).
// RUN: rm -rf %t.d && mkdir -p %t.d
// RUN: forge-port propose %S/Inputs/stream_locals.cu --spec %S/Inputs/conv5_bias.json --rules=stencil-register-rows --format=json > %t.d/bias.json
// RUN: forge-port propose %S/Inputs/stream_locals.cu --spec %S/Inputs/conv3_stride.json --rules=stencil-register-rows --format=json > %t.d/stride.json
// RUN: %python %S/../../Inputs/apply_proposal.py %t.d/bias.json 2 %S/Inputs/stream_locals.cu > %t.d/b2.cu
// RUN: FileCheck %s --check-prefix=BIAS --match-full-lines --input-file=%t.d/b2.cu
// RUN: %python %S/../../Inputs/apply_proposal.py %t.d/stride.json 2 %t.d/b2.cu > %t.d/stream0.cu
// RUN: FileCheck %s --check-prefix=STRIDE --match-full-lines --input-file=%t.d/stream0.cu
// RUN: %python %S/../../Inputs/apply_proposal.py %t.d/bias.json 3 %S/Inputs/stream_locals.cu > %t.d/b3.cu
// RUN: %python %S/../../Inputs/apply_proposal.py %t.d/stride.json 3 %t.d/b3.cu > %t.d/stream1.cu
// RUN: %python %S/../../Inputs/apply_proposal.py %t.d/bias.json 4 %S/Inputs/stream_locals.cu > %t.d/stream2.cu
// RUN: grep -c "interior rows in 16-byte loads" %t.d/bias.json | FileCheck %s --check-prefix=VEC
// VEC: 1
// RUN: %nvcc -arch=sm_90 -ptx %t.d/stream0.cu -o %t.d/stream0.ptx
// RUN: %nvcc -arch=sm_90 -ptx %t.d/stream2.cu -o %t.d/stream2.ptx
// RUN: not grep -q "ld.local" %t.d/stream0.ptx
// RUN: not grep -q "ld.local" %t.d/stream2.ptx
// RUN: %clang -x c++ -std=c++17 -O1 -ffp-contract=off -fno-strict-aliasing -w -I%S/Inputs -I%t.d %s -o %t.d/emulate -lstdc++ -lm
// RUN: %t.d/emulate | FileCheck %s --check-prefix=EMU --implicit-check-not=MISMATCH
// EMU-COUNT-90: {{: ok$}}
// EMU: 90 same, 0 differ

// The value read from memory is kept per output; x, y and band are not.
// BIAS:   float b_s[8][2];
// BIAS-NEXT:   float acc_s[8][2];
// BIAS-NEXT:   bool act[8][2];
// BIAS-NEXT:   bool act2[8][2];
// BIAS-NEXT:   bool all_active = true;
// BIAS:     for (int c = 0; c < 2; ++c) {
// BIAS-NEXT:       const int x = (threadIdx.x * 2 + c) + (blockIdx.x * 2) * blockDim.x;
// BIAS-NEXT:       const int y = (blockIdx.y * 8) * blockDim.y + (threadIdx.y * 8 + o);
// BIAS-NEXT:       const int band = y / 4;
// BIAS-NEXT:       act[o][c] = true;
// BIAS-NEXT:       if (act[o][c] && (y >= h))
// BIAS-NEXT:         act[o][c] = false;
// BIAS-NEXT:       if (act[o][c]) b_s[o][c] = bias[band];
// BIAS-NEXT:       act2[o][c] = act[o][c] && (x < w);
// BIAS-NEXT:       if (act2[o][c]) acc_s[o][c] = b_s[o][c];
// BIAS-NEXT:       all_active = all_active && act2[o][c];
// BIAS-NEXT:     }
// BIAS:   const bool interior = all_active && (row0 - 2) >= 0 && {{.*}};
// The interior copy: no guard, the outputs' x and y recomputed in each
// output's scope.
// BIAS-NEXT:   if (interior) {
// BIAS:           for (int c = 0; c < 2; ++c) {
// BIAS-NEXT:             const int x = (threadIdx.x * 2 + c) + (blockIdx.x * 2) * blockDim.x;
// BIAS-NEXT:             const int y = (blockIdx.y * 8) * blockDim.y + (threadIdx.y * 8 + o);
// BIAS-NEXT:             do {
// The epilogue of interior threads: unguarded, idx and band recomputed.
// BIAS:       for (int c = 0; c < 2; ++c) {
// BIAS-NEXT:         const int x = (threadIdx.x * 2 + c) + (blockIdx.x * 2) * blockDim.x;
// BIAS-NEXT:         const int y = (blockIdx.y * 8) * blockDim.y + (threadIdx.y * 8 + o);
// BIAS-NEXT:         const int idx = y * w + x;
// BIAS-NEXT:         const int band = y / 4;
// BIAS-NEXT:           out[idx] = acc_s[o][c] + (float)band;
// BIAS-NEXT:       }
// BIAS-NEXT:   } else {
// The border copy keeps the guards, in the rows and in the epilogue.
// BIAS:             if (act2[o][c])
// BIAS-NEXT:               do {
// BIAS:         if (act2[o][c]) {
// BIAS-NEXT:             out[idx] = acc_s[o][c] + (float)band;
// BIAS-NEXT:         }

// A division by a parameter under the guard stays per output.
// STRIDE:   int g_s[8][2];
// STRIDE:       if (act[o][c]) g_s[o][c] = y / group;
// STRIDE:           out[y * w + x] = acc_s[o][c] * (float)(g_s[o][c] + 1);

#include <cmath>
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <random>
#include <vector>

#include "cpu_grid.h"

namespace orig {
#include "stream_locals.cu"
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
/// the rewrite with 8 x 2 (c = 1), 4 x 2 (c = 2) or 4 x 4 outputs per
/// thread in 16-byte rows (c = 3, where Vector).
template <typename Run> void cases(const char *Name, bool Vector, Run R) {
  struct Image {
    int W, H;
  };
  for (Image I : {Image{204, 117}, Image{203, 61}, Image{13, 7}}) {
    for (D3 B : {D3{16, 16}, D3{32, 8}, D3{5, 3}}) {
      D3 G{ceilDiv(I.W, B.x), ceilDiv(I.H, B.y)};
      std::vector<float> Ref = R(0, G, B, I.W, I.H);
      for (int C = 1; C <= (Vector ? 3 : 2); ++C) {
        unsigned Rows = C == 1 ? 8 : 4, Cols = C == 3 ? 4 : 2;
        for (D3 GG : {G, D3{ceilDiv(G.x, Cols), ceilDiv(G.y, Rows)}}) {
          std::vector<float> Got = R(C, GG, B, I.W, I.H);
          bool Ok = !std::memcmp(Ref.data(), Got.data(), Ref.size() * sizeof(float));
          std::printf("%s %ux%u block %ux%u grid %ux%u on %dx%d: %s\n", Name, Rows, Cols, B.x,
                      B.y, GG.x, GG.y, I.W, I.H, Ok ? "ok" : "MISMATCH");
          ++(Ok ? Same : Differ);
        }
      }
    }
  }
}

} // namespace

int main() {
  std::mt19937 Rng(11);
  std::uniform_real_distribution<float> U(-1, 1);
  std::vector<float> In(210 * 120 + 8), Bias(64);
  for (std::vector<float> *V : {&In, &Bias})
    for (float &X : *V)
      X = U(Rng);
  const float *Src = In.data();
  while (reinterpret_cast<unsigned long long>(Src) % 16)
    ++Src;
#define CASES(K, Vector, ...)                                                                      \
  cases(#K, Vector, [&](int C, D3 G, D3 B, int W, int H) {                                         \
    std::vector<float> O(size_t(W) * H, -7.0f);                                                    \
    float *Dst = O.data();                                                                         \
    launch(G, B, [&] {                                                                             \
      if (C == 0)                                                                                  \
        orig::K(__VA_ARGS__);                                                                      \
      else if (C == 1)                                                                             \
        stream0::K(__VA_ARGS__);                                                                   \
      else if (C == 2)                                                                             \
        stream1::K(__VA_ARGS__);                                                                   \
      else                                                                                         \
        stream2::K(__VA_ARGS__);                                                                   \
    });                                                                                            \
    return O;                                                                                      \
  })
  CASES(conv5_bias, true, Src, Bias.data(), Dst, W, H);
  CASES(conv3_stride, false, Src, Dst, W, H, 3);
  std::printf("%d same, %d differ\n", Same, Differ);
  return Differ != 0;
}
