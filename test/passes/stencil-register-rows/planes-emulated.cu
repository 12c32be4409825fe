// The 3D form (planes along threadIdx.z) of the kernels of
// test/gpu/Inputs/rules/register_planes.cu, run on this machine's CPU:
// they neither synchronise nor share memory, so running their threads one
// after another computes what the GPU computes, and each output must be
// bitwise the original's (-ffp-contract=off). Both proposals (2 and 4
// planes per thread) of the interior box, the clamped weighted box and the
// zero-padded box (interior copy); volumes 23 x 13 x 11 and 5 x 3 x 4 at
// offset pointers; blocks 8x4x4, 4x4x2, 8x2x3 and 16x1x1; the original
// grid and the grid divided by the planes along z. The whole output, filled
// with a marker first, is compared, so a write the original does not make
// is caught. test/gpu/rules/stencil-register-planes.cu checks the same on a
// GPU.
// RUN: rm -rf %t.d && mkdir -p %t.d
// RUN: cp %S/../../gpu/Inputs/rules/register_planes.cu %t.d/a0.cu && cp %S/../../gpu/Inputs/rules/register_planes.cu %t.d/b0.cu
// RUN: forge-port propose %t.d/a0.cu --spec %S/../../gpu/Inputs/rules/register_planes/box_interior.json --rules=stencil-register-rows --format=json > %t.d/a0.json
// RUN: %python %S/../../Inputs/apply_proposal.py %t.d/a0.json 0 %t.d/a0.cu > %t.d/a1.cu
// RUN: forge-port propose %t.d/a1.cu --spec %S/../../gpu/Inputs/rules/register_planes/smooth_clamped.json --rules=stencil-register-rows --format=json > %t.d/a1.json
// RUN: %python %S/../../Inputs/apply_proposal.py %t.d/a1.json 0 %t.d/a1.cu > %t.d/a2.cu
// RUN: forge-port propose %t.d/a2.cu --spec %S/../../gpu/Inputs/rules/register_planes/box_zero.json --rules=stencil-register-rows --format=json > %t.d/a2.json
// RUN: %python %S/../../Inputs/apply_proposal.py %t.d/a2.json 0 %t.d/a2.cu > %t.d/p0.cu
// RUN: forge-port propose %t.d/b0.cu --spec %S/../../gpu/Inputs/rules/register_planes/box_interior.json --rules=stencil-register-rows --format=json > %t.d/b0.json
// RUN: %python %S/../../Inputs/apply_proposal.py %t.d/b0.json 1 %t.d/b0.cu > %t.d/b1.cu
// RUN: forge-port propose %t.d/b1.cu --spec %S/../../gpu/Inputs/rules/register_planes/smooth_clamped.json --rules=stencil-register-rows --format=json > %t.d/b1.json
// RUN: %python %S/../../Inputs/apply_proposal.py %t.d/b1.json 1 %t.d/b1.cu > %t.d/b2.cu
// RUN: forge-port propose %t.d/b2.cu --spec %S/../../gpu/Inputs/rules/register_planes/box_zero.json --rules=stencil-register-rows --format=json > %t.d/b2.json
// RUN: %python %S/../../Inputs/apply_proposal.py %t.d/b2.json 1 %t.d/b2.cu > %t.d/p1.cu
// RUN: grep -c "output planes per thread" %t.d/p0.cu %t.d/p1.cu | FileCheck %s --check-prefix=PLANES
// PLANES: p0.cu:3
// PLANES: p1.cu:3
// RUN: %clang -x c++ -std=c++17 -O1 -ffp-contract=off -fno-strict-aliasing -w -I%S/../../gpu/Inputs/rules -I%S/Inputs -I%t.d %s -o %t.d/emulate -lstdc++ -lm
// RUN: %t.d/emulate | FileCheck %s --check-prefix=EMU --implicit-check-not=MISMATCH
// EMU-COUNT-96: {{: ok$}}
// EMU: 96 same, 0 differ
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <random>
#include <vector>

#include "cpu_grid.h"

namespace orig {
#include "register_planes.cu"
} // namespace orig
namespace p0 {
#include "p0.cu"
} // namespace p0
namespace p1 {
#include "p1.cu"
} // namespace p1

namespace {

using K = void (*)(const float *, float *, int, int, int);
int Same = 0, Differ = 0;

/// Orig against its rewrites with 2 (Cand0) and 4 (Cand1) planes per thread.
void cases(const char *Name, K Orig, K Cand0, K Cand1) {
  struct Volume {
    int X, Y, Z;
  };
  for (Volume V : {Volume{23, 13, 11}, Volume{5, 3, 4}}) {
    size_t N = size_t(V.X) * V.Y * V.Z;
    std::mt19937 Gen(7);
    std::uniform_real_distribution<float> U(-1.f, 1.f);
    std::vector<float> In(N + 1);
    for (float &F : In)
      F = U(Gen);
    auto Run = [&](K Kern, D3 G, D3 B) {
      std::vector<float> Out(N + 5, -12345.f);
      launch(G, B, [&] { Kern(In.data() + 1, Out.data() + 3, V.X, V.Y, V.Z); });
      return Out;
    };
    for (D3 B : {D3{8, 4, 4}, D3{4, 4, 2}, D3{8, 2, 3}, D3{16, 1, 1}}) {
      D3 G{ceilDiv(V.X, B.x), ceilDiv(V.Y, B.y), ceilDiv(V.Z, B.z)};
      std::vector<float> Ref = Run(Orig, G, B);
      for (unsigned Planes : {2u, 4u})
        for (D3 GG : {D3{G.x, G.y, ceilDiv(G.z, Planes)}, G}) {
          std::vector<float> Got = Run(Planes == 2 ? Cand0 : Cand1, GG, B);
          bool Ok = !std::memcmp(Ref.data(), Got.data(), Ref.size() * sizeof(float));
          std::printf("%s %u planes block %ux%ux%u grid.z %u on %dx%dx%d: %s\n", Name, Planes, B.x,
                      B.y, B.z, GG.z, V.X, V.Y, V.Z, Ok ? "ok" : "MISMATCH");
          ++(Ok ? Same : Differ);
        }
    }
  }
}

} // namespace

int main() {
  cases("box_interior", orig::box_interior, p0::box_interior, p1::box_interior);
  cases("smooth_clamped", orig::smooth_clamped, p0::smooth_clamped, p1::smooth_clamped);
  cases("box_zero", orig::box_zero, p0::box_zero, p1::box_zero);
  std::printf("%d same, %d differ\n", Same, Differ);
  return Differ != 0;
}
