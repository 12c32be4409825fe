// REQUIRES: cuda
// Column loops whose iterations are independent: the loop carries no value
// and each iteration stores its own elements (test/gpu/Inputs/rules/
// col_independent.cu). The slices split the rows with no partials; a loop
// that nothing follows needs no arrival counter, one with code after it
// (col_tail) keeps the last-slice protocol so that code runs once, after
// every row. The declines: a store and a read of other elements of one
// buffer (a running column), one element stored in every iteration, an
// atomic.
// RUN: rm -rf %t.d && mkdir -p %t.d
// RUN: cp %S/../../gpu/Inputs/rules/col_independent.cu %t.d/a0.cu
// RUN: forge-port propose %t.d/a0.cu --spec %S/../../gpu/Inputs/rules/col_independent/col_smooth.json --rules=column-split > %t.d/smooth.props
// RUN: FileCheck %s --check-prefix=WHY --input-file=%t.d/smooth.props
// RUN: forge-port propose %t.d/a0.cu --spec %S/../../gpu/Inputs/rules/col_independent/col_smooth.json --rules=column-split --apply -o %t.d/a1.cu
// RUN: forge-port propose %t.d/a1.cu --spec %S/../../gpu/Inputs/rules/col_independent/col_scale_walk.json --rules=column-split --apply -o %t.d/a2.cu
// RUN: forge-port propose %t.d/a2.cu --spec %S/../../gpu/Inputs/rules/col_independent/col_tail.json --rules=column-split --apply -o %t.d/split.cu
// RUN: FileCheck %s --check-prefix=SPLIT --input-file=%t.d/split.cu
// RUN: %nvcc -arch=sm_90 -c %t.d/split.cu -o %t.d/split.o
// RUN: not forge-port propose %s --kernel col_running --block 256 --rules=column-split 2>&1 | FileCheck %s --check-prefix=RUNNING
// RUN: not forge-port propose %s --kernel col_last --block 256 --rules=column-split 2>&1 | FileCheck %s --check-prefix=LAST
// RUN: not forge-port propose %s --kernel col_count --block 256 --rules=column-split 2>&1 | FileCheck %s --check-prefix=ATOMIC
// The no-tail rewrites (col_smooth, col_scale_walk) run on the CPU thread
// by thread against the originals, bitwise (no shared memory or barrier in
// them): 5 sizes x 3 blocks x 3 grids along y, 45 cases each.
// RUN: %clang -x c++ -std=c++17 -O1 -ffp-contract=off -w -DEMULATE -I%S/../stencil-register-rows/Inputs -I%S/../../gpu/Inputs/rules -I%t.d %s -o %t.d/emulate -lstdc++ -lm
// RUN: %t.d/emulate | FileCheck %s --check-prefix=EMU --implicit-check-not=MISMATCH
// WHY: # expert:column-split: the column loop over 'y' split over 32 slices of each block (32 columns per block, independent iterations)
// WHY: the loop carries nothing from one iteration to the next and each iteration stores its own elements (out[y * w + x], which the loop reads nowhere else), so the slices run the iterations in any order with the same results, bitwise; nothing follows the loop, so every slice is done after its rows.
// WHY: # spec: grid.x -> (ceil_div(W, BLOCK)) * ((BLOCK) / 32)
// WHY: # spec: grid.y -> FORGE_COLUMN_BLOCKS
// col_smooth: no counter, no shared memory; the rows start at the slice.
// SPLIT-LABEL: __global__ void col_smooth(
// SPLIT: const unsigned int shares = gridDim.y;
// SPLIT-NOT: arrived
// SPLIT: for (int y = 2 + part; y < h - 2; y += parts)
// SPLIT-NEXT: out[y * w + x] = 0.2f * (in[(y - 2) * w + x] + in[(y - 1) * w + x] + in[y * w + x] +
// The walk starts part steps on and steps parts steps.
// SPLIT-LABEL: __global__ void col_scale_walk(
// SPLIT-NOT: arrived
// SPLIT: p += part * cols;
// SPLIT-NEXT: for (int r = part; r < rows; r += parts, p += parts * cols)
// col_tail: what follows the loop runs in the last slice (and block) of the column.
// SPLIT: col_tail_column_arrivals[
// SPLIT-LABEL: __global__ void col_tail(
// SPLIT: __shared__ unsigned int arrived[32];
// SPLIT: for (int y = part; y < h; y += parts)
// SPLIT: if (atomicAdd(&arrived[lane], 1u) != (unsigned int)slices - 1u)
// SPLIT: if (atomicAdd(&col_tail_column_arrivals[orig_thread], 1u) != shares - 1u)
// SPLIT: done[x] = done[x] + 1;
// RUNNING: column-split: not applicable: the column loop over 'y' at line {{[0-9]+}} stores to 'out[y * w + x]' and also reads 'out[(y - 1) * w + x]', another element of the buffer: one iteration could depend on another
// LAST: column-split: not applicable: the column loop over 'y' at line {{[0-9]+}} writes 'out[x]' at the same element in every iteration: the iterations are not independent
// ATOMIC: column-split: not applicable: the column loop over 'y' at line {{[0-9]+}} makes the atomic 'atomicAdd(&counts[x], in[y * w + x] > 0.f)'
// EMU-COUNT-90: {{: ok$}}
// EMU: 90 same, 0 differ

#ifndef EMULATE
__global__ void col_running(const float *in, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  if (x >= w) return;
  for (int y = 1; y < h; ++y)
    out[y * w + x] = out[(y - 1) * w + x] + in[y * w + x];
}
__global__ void col_last(const float *in, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  if (x >= w) return;
  for (int y = 0; y < h; ++y)
    out[x] = in[y * w + x];
}
__global__ void col_count(const float *in, int *counts, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  if (x >= w) return;
  for (int y = 0; y < h; ++y)
    atomicAdd(&counts[x], in[y * w + x] > 0.f);
}
#else
#include <cstdio>
#include <cstring>
#include <random>
#include <vector>

#include "cpu_grid.h"

namespace orig {
#define col_tail col_tail_unused
#define atomicAdd(p, v) (*(p) += (v))
#include "col_independent.cu"
#undef col_tail
} // namespace orig
namespace split {
#define col_tail col_tail_unused
#define __device__
#define __shared__ static
#define __syncthreads()
#define __threadfence_block()
#define __threadfence()
#include "split.cu"
} // namespace split

int main() {
  int Same = 0, Differ = 0;
  struct Size {
    int W, H;
  };
  for (Size S : {Size{100, 37}, Size{33, 200}, Size{64, 5}, Size{7, 3}, Size{1, 1}}) {
    std::mt19937 Gen(3);
    std::uniform_real_distribution<float> U(-1.f, 1.f);
    size_t N = size_t(S.W) * S.H;
    std::vector<float> In(N + 1), F(S.W + 1);
    for (float &X : In)
      X = U(Gen);
    for (float &X : F)
      X = U(Gen);
    for (unsigned B : {64u, 96u, 256u})
      for (unsigned Shares : {1u, 3u, 8u}) {
        D3 G0{ceilDiv(S.W, B)}, G1{G0.x * (B / 32), Shares};
        for (int K = 0; K < 2; ++K) {
          std::vector<float> Ref(N + 4, -7.f), Got(N + 4, -7.f);
          if (K == 0) {
            launch(G0, D3{B}, [&] { orig::col_smooth(In.data() + 1, Ref.data() + 3, S.W, S.H); });
            launch(G1, D3{B}, [&] { split::col_smooth(In.data() + 1, Got.data() + 3, S.W, S.H); });
          } else {
            Ref.assign(In.begin(), In.end());
            Got.assign(In.begin(), In.end());
            launch(G0, D3{B}, [&] { orig::col_scale_walk(Ref.data() + 1, F.data() + 1, S.H, S.W); });
            launch(G1, D3{B}, [&] { split::col_scale_walk(Got.data() + 1, F.data() + 1, S.H, S.W); });
          }
          bool Ok = Ref.size() == Got.size() &&
                    !std::memcmp(Ref.data(), Got.data(), Ref.size() * sizeof(float));
          std::printf("%s %dx%d block %u shares %u: %s\n", K ? "col_scale_walk" : "col_smooth",
                      S.W, S.H, B, Shares, Ok ? "ok" : "MISMATCH");
          ++(Ok ? Same : Differ);
        }
      }
  }
  std::printf("%d same, %d differ\n", Same, Differ);
  return Differ != 0;
}
#endif
