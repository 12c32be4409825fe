// stencil-register-rows after specialize-scalar: the kernels of
// test/gpu/Inputs/rules/stencil_runtime.cu whose radius or mask width is a
// parameter (conv2d_basic mw 5, box_r r 2, conv2d_radius r 3) are first
// specialised for their spec's value; the specialised kernel's fallback,
// the original body for any other value, takes the thread's indices as
// arguments, so register-rows can run it per row with the row's indices
// (before it loads the window and the coefficients, which are sized for
// the spec's value). Both proposals of each kernel (coefficients in
// registers) run here on the CPU thread by thread against the original:
// the spec's value and two others (the fallback), two images at offset
// pointers, three block shapes, the grid divided by the rows and the
// original grid; the whole output, filled with a marker first, compared
// bit for bit (-ffp-contract=off). test/gpu/rules/register-rows-fallback.cu
// checks the same on a GPU.
// RUN: rm -rf %t.d && mkdir -p %t.d
// RUN: cp %S/../../gpu/Inputs/rules/stencil_runtime.cu %t.d/s0.cu
// RUN: forge-port propose %t.d/s0.cu --kernel conv2d_basic --spec %S/../../gpu/Inputs/rules/specialize/conv2d_basic.json --rules=specialize-scalar --apply -o %t.d/s1.cu
// RUN: forge-port propose %t.d/s1.cu --kernel box_r --spec %S/../../gpu/Inputs/rules/specialize/box_r.json --rules=specialize-scalar --apply -o %t.d/s2.cu
// RUN: forge-port propose %t.d/s2.cu --kernel conv2d_radius --spec %S/../../gpu/Inputs/rules/specialize/conv2d_radius.json --rules=specialize-scalar --apply -o %t.d/s3.cu
// RUN: forge-port propose %t.d/s3.cu --kernel conv2d_basic --spec %S/../../gpu/Inputs/rules/specialize/conv2d_basic.json --rules=stencil-register-rows --format=json > %t.d/p0_0.json
// RUN: %python %S/../../Inputs/apply_proposal.py %t.d/p0_0.json 0 %t.d/s3.cu > %t.d/p0_0.cu
// RUN: forge-port propose %t.d/p0_0.cu --kernel box_r --spec %S/../../gpu/Inputs/rules/specialize/box_r.json --rules=stencil-register-rows --format=json > %t.d/p0_1.json
// RUN: %python %S/../../Inputs/apply_proposal.py %t.d/p0_1.json 0 %t.d/p0_0.cu > %t.d/p0_1.cu
// RUN: forge-port propose %t.d/p0_1.cu --kernel conv2d_radius --spec %S/../../gpu/Inputs/rules/specialize/conv2d_radius.json --rules=stencil-register-rows --format=json > %t.d/p0_2.json
// RUN: %python %S/../../Inputs/apply_proposal.py %t.d/p0_2.json 0 %t.d/p0_1.cu > %t.d/p0.cu
// RUN: forge-port propose %t.d/s3.cu --kernel conv2d_basic --spec %S/../../gpu/Inputs/rules/specialize/conv2d_basic.json --rules=stencil-register-rows --format=json > %t.d/p1_0.json
// RUN: %python %S/../../Inputs/apply_proposal.py %t.d/p1_0.json 1 %t.d/s3.cu > %t.d/p1_0.cu
// RUN: forge-port propose %t.d/p1_0.cu --kernel box_r --spec %S/../../gpu/Inputs/rules/specialize/box_r.json --rules=stencil-register-rows --format=json > %t.d/p1_1.json
// RUN: %python %S/../../Inputs/apply_proposal.py %t.d/p1_1.json 1 %t.d/p1_0.cu > %t.d/p1_1.cu
// RUN: forge-port propose %t.d/p1_1.cu --kernel conv2d_radius --spec %S/../../gpu/Inputs/rules/specialize/conv2d_radius.json --rules=stencil-register-rows --format=json > %t.d/p1_2.json
// RUN: %python %S/../../Inputs/apply_proposal.py %t.d/p1_2.json 1 %t.d/p1_1.cu > %t.d/p1.cu
// RUN: FileCheck %s --check-prefix=FALLBACK --input-file=%t.d/p0.cu
// FALLBACK-LABEL: __global__ void conv2d_basic(
// FALLBACK-NEXT:  // stencil-register-rows: 4 output rows per thread
// FALLBACK:       if (mw != 5) {
// FALLBACK-NEXT:  #pragma unroll
// FALLBACK-NEXT:    for (int [[R:r[0-9]*]] = 0; [[R]] < 4; ++[[R]])
// FALLBACK-NEXT:      [&]() {
// FALLBACK-NEXT:        conv2d_basic_forge_any(make_uint3(threadIdx.x, (threadIdx.y * 4 + [[R]]), threadIdx.z), make_uint3(blockIdx.x, (blockIdx.y * 4), blockIdx.z), img, mask, out, w, h, mw);
// FALLBACK-NEXT:      }();
// FALLBACK-NEXT:    return;
// FALLBACK-NEXT:  }
// FALLBACK-NEXT:  // Coefficients loaded once: 'mask' (25 values) in registers.
// FALLBACK-LABEL: __global__ void box_r(
// FALLBACK:       if (r != 2) {
// FALLBACK:         box_r_forge_any(make_uint3(threadIdx.x, (threadIdx.y * 4 + {{r[0-9]*}}), threadIdx.z), make_uint3(blockIdx.x, (blockIdx.y * 4), blockIdx.z), in, out, nx, ny, r);
// FALLBACK-LABEL: __global__ void conv2d_radius(
// FALLBACK:       if (r != 3) {
// FALLBACK:       // Coefficients loaded once: 'mask' (49 values) in registers.
// RUN: %nvcc -arch=sm_90 -c %t.d/p0.cu -o %t.d/p0.o
// RUN: %nvcc -arch=sm_90 -c %t.d/p1.cu -o %t.d/p1.o
// RUN: %clang -x c++ -std=c++17 -O1 -ffp-contract=off -fno-strict-aliasing -w -I%S/../../gpu/Inputs/rules -I%S/Inputs -I%t.d %s -o %t.d/emulate -lstdc++ -lm
// RUN: %t.d/emulate | FileCheck %s --check-prefix=EMU --implicit-check-not=MISMATCH
// EMU-COUNT-216: {{: ok$}}
// EMU: 216 same, 0 differ
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <random>
#include <vector>

#include "cpu_grid.h"

namespace orig {
#include "stencil_runtime.cu"
} // namespace orig
namespace p0 {
#include "p0.cu"
} // namespace p0
namespace p1 {
#include "p1.cu"
} // namespace p1

namespace {

int Same = 0, Differ = 0;

/// Launches one of the kernels with the image, mask and output it takes.
using Launch = void (*)(const float *Img, const float *Mask, float *Out, int W, int H, int P);

/// Orig against the rewrites with Rows0 and Rows1 rows per thread, for the
/// spec's value Spec of the parameter and two others.
void cases(const char *Name, Launch Orig, Launch Cand0, Launch Cand1, int Rows0, int Rows1,
           int Spec, int Other0, int Other1, bool Width) {
  struct Image {
    int W, H;
  };
  for (Image I : {Image{37, 23}, Image{5, 3}}) {
    size_t N = size_t(I.W) * I.H;
    std::mt19937 Gen(11);
    std::uniform_real_distribution<float> U(-1.f, 1.f);
    std::vector<float> In(N + 1), Mask(40 * 40 + 2);
    for (float &F : In)
      F = U(Gen);
    for (float &F : Mask)
      F = U(Gen);
    for (int P : {Spec, Other0, Other1}) {
      auto Run = [&](Launch K, D3 G, D3 B) {
        std::vector<float> Out(N + 5, -12345.f);
        launch(G, B, [&] { K(In.data() + 1, Mask.data() + 2, Out.data() + 3, I.W, I.H, P); });
        return Out;
      };
      for (D3 B : {D3{16, 8, 1}, D3{8, 4, 1}, D3{32, 1, 1}}) {
        D3 G{ceilDiv(I.W, B.x), ceilDiv(I.H, B.y), 1};
        std::vector<float> Ref = Run(Orig, G, B);
        for (int Which : {0, 1}) {
          unsigned Rows = Which ? Rows1 : Rows0;
          for (D3 GG : {D3{G.x, ceilDiv(G.y, Rows), 1}, G}) {
            std::vector<float> Got = Run(Which ? Cand1 : Cand0, GG, B);
            bool Ok = !std::memcmp(Ref.data(), Got.data(), Ref.size() * sizeof(float));
            std::printf("%s %s %d, %u rows, block %ux%u grid.y %u on %dx%d: %s\n", Name,
                        Width ? "mw" : "r", P, Rows, B.x, B.y, GG.y, I.W, I.H,
                        Ok ? "ok" : "MISMATCH");
            ++(Ok ? Same : Differ);
          }
        }
      }
    }
  }
}

template <void (*K)(const float *, const float *, float *, int, int, int)>
void masked(const float *Img, const float *Mask, float *Out, int W, int H, int P) {
  K(Img, Mask, Out, W, H, P);
}
template <void (*K)(const float *, float *, int, int, int)>
void unmasked(const float *Img, const float *, float *Out, int W, int H, int P) {
  K(Img, Out, W, H, P);
}

} // namespace

int main() {
  cases("conv2d_basic", masked<orig::conv2d_basic>, masked<p0::conv2d_basic>,
        masked<p1::conv2d_basic>, 4, 8, 5, 3, 7, true);
  cases("box_r", unmasked<orig::box_r>, unmasked<p0::box_r>, unmasked<p1::box_r>, 4, 8, 2, 0, 3,
        false);
  cases("conv2d_radius", masked<orig::conv2d_radius>, masked<p0::conv2d_radius>,
        masked<p1::conv2d_radius>, 4, 2, 3, 1, 4, false);
  std::printf("%d same, %d differ\n", Same, Differ);
  return Differ != 0;
}
