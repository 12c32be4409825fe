// REQUIRES: cuda
// Arrays of different element sizes: four elements per vector (a float4
// beside the char4 of an int8 input, 16 and 4 bytes), two where an array
// has 8-byte elements (double2 beside short2 or float2), on the kernels of
// test/gpu/Inputs/rules/mixed_maps.cu (test/gpu/rules/vectorize-mixed.cu
// runs them on a GPU). Each pointer is
// checked against its own vector's alignment. The rewrites run on the CPU
// thread by thread against the originals (odd lengths, pointers at and off
// their vectors' alignment; the rewrite on the original's grid, a quarter
// of it and one block): every output bitwise the same.
// RUN: rm -rf %t.d && mkdir -p %t.d && cp %S/../../gpu/Inputs/rules/mixed_maps.cu %t.d/m0.cu
// RUN: forge-port propose %t.d/m0.cu --kernel dequant --rules=vectorize --apply -o %t.d/m1.cu 2>&1 | FileCheck %s --check-prefix=NOTE
// RUN: forge-port propose %t.d/m1.cu --kernel to_bytes --rules=vectorize --apply -o %t.d/m2.cu 2>&1 | FileCheck %s --check-prefix=NOTE-BYTES
// RUN: forge-port propose %t.d/m2.cu --kernel widen --rules=vectorize --apply -o %t.d/m3.cu 2>&1 | FileCheck %s --check-prefix=NOTE-WIDEN
// RUN: forge-port propose %t.d/m3.cu --kernel promote --rules=vectorize --apply -o %t.d/m4.cu 2>&1 | FileCheck %s --check-prefix=NOTE-PROMOTE
// RUN: forge-port propose %t.d/m4.cu --kernel dequant_group --rules=vectorize --apply -o %t.d/mixed_maps.vec.cu 2>&1 | FileCheck %s --check-prefix=NOTE-GROUP
// RUN: forge-port analyze %t.d/m0.cu --kernel dequant_group | FileCheck %s --check-prefix=MODEL
// RUN: FileCheck %s --check-prefix=FIX --match-full-lines --input-file=%t.d/mixed_maps.vec.cu
// RUN: %nvcc -arch=sm_90 -ptx %t.d/mixed_maps.vec.cu -o - | FileCheck %s --check-prefix=PTX
// RUN: %clang -x c++ -std=c++17 -O1 -ffp-contract=off -w -I%S/../stencil-register-rows/Inputs -I%S/Inputs -I%S/../../gpu/Inputs/rules -I%t.d %s -o %t.d/emulate -lstdc++ -lm
// RUN: %t.d/emulate | FileCheck %s --check-prefix=EMU --implicit-check-not=MISMATCH
// NOTE: forge-port: note: applied expert:vectorize: 4-element accesses (char4, float4) to q, out
// NOTE-BYTES: forge-port: note: applied expert:vectorize: 4-element accesses (float4, uchar4) to x, y
// NOTE-WIDEN: forge-port: note: applied expert:vectorize: 2-element accesses (short2, double2) to a, b
// NOTE-PROMOTE: forge-port: note: applied expert:vectorize: 2-element accesses (float2, double2) to in, out
// A side read (the group's scale) stays a scalar load per lane, at the
// lane's own element.
// NOTE-GROUP: forge-port: note: applied expert:vectorize: 4-element accesses (char4, float4) to q, out
// MODEL: each element also reads 'scale[i / group]' (line {{[0-9]+}}) at its own index '(blockIdx.x * blockDim.x + threadIdx.x) / group', a buffer the map does not write
// FIX-LABEL: __global__ void dequant(const signed char *q, float *out, float scale, int n) {
// FIX:         const bool forge_aligned = ((reinterpret_cast<size_t>(out)) % 16) == 0 && ((reinterpret_cast<size_t>(q)) % 4) == 0;
// FIX:           const char4 forge_q = reinterpret_cast<const char4 *>(q)[forge_v];
// FIX-NEXT:      float4 forge_out;
// FIX-NEXT:      { forge_out.x = scale * (float)forge_q.x; }
// FIX:           reinterpret_cast<float4 *>(out)[forge_v] = forge_out;
// FIX-LABEL: __global__ void to_bytes(const float *x, unsigned char *y, int n) {
// FIX:           reinterpret_cast<uchar4 *>(y)[forge_v] = forge_y;
// FIX-LABEL: __global__ void widen(const short *a, double *b, int n) {
// FIX:         const bool forge_aligned = ((reinterpret_cast<size_t>(b)) % 16) == 0 && ((reinterpret_cast<size_t>(a)) % 4) == 0;
// FIX:         const long long forge_vectors = forge_aligned && forge_n > 0 ? forge_n / 2 : 0;
// FIX-LABEL: __global__ void promote(const float *in, double *out, int n) {
// FIX:         const bool forge_aligned = ((reinterpret_cast<size_t>(out)) % 16) == 0 && ((reinterpret_cast<size_t>(in)) % 8) == 0;
// FIX-LABEL: __global__ void dequant_group(const signed char *q, const float *scale, float *out, int n,
// FIX:           { forge_out.x = scale[((int)(forge_v * 4 + 0)) / group] * (float)forge_q.x; }
// FIX-NEXT:      { forge_out.y = scale[((int)(forge_v * 4 + 1)) / group] * (float)forge_q.y; }
// PTX: ld.global.v4.u8
// PTX: st.global.v4.f32
// PTX: ld.global.v4.f32
// PTX: st.global.v4.u8
// PTX: ld.global.v2.u16
// PTX: st.global.v2.f64
// PTX: ld.global.v2.f32
// PTX: st.global.v2.f64
// EMU: 168 same, 0 differ
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <random>
#include <vector>

#include "cpu_grid.h"
#include "cpu_vectors.h"

namespace orig {
#include "mixed_maps.cu"
} // namespace orig
namespace vec {
#include "mixed_maps.vec.cu"
} // namespace vec

namespace {

int Same = 0, Differ = 0;

/// Runs Orig and Vec on the same inputs (In: Pad elements past an aligned
/// allocation) over three grids for each length and placement, comparing
/// the whole output buffer bytewise.
template <typename TIn, typename TOut, typename Launch>
void cases(const char *Name, Launch Run) {
  for (int N : {1, 7, 1003, 4099})
    for (int Pad : {0, 1}) {
      std::mt19937 Gen(N + Pad);
      std::uniform_real_distribution<double> U(-120.0, 120.0); // within every input type
      alignas(64) static unsigned char InBuf[1 << 16], OutA[1 << 16], OutB[1 << 16];
      TIn *In = reinterpret_cast<TIn *>(InBuf) + Pad;
      for (int I = 0; I < N; ++I)
        In[I] = TIn(U(Gen));
      // The original on the grid that covers the array; the rewrite on
      // it, on the spec change's quarter of it, and on one block.
      D3 Cover{(unsigned)(N + 31) / 32, 1, 1};
      for (D3 G : {Cover, D3{ceilDiv(Cover.x, 4), 1, 1}, D3{1, 1, 1}}) {
        std::memset(OutA, 0x5a, sizeof OutA);
        std::memset(OutB, 0x5a, sizeof OutB);
        TOut *A = reinterpret_cast<TOut *>(OutA) + Pad, *B = reinterpret_cast<TOut *>(OutB) + Pad;
        launch(Cover, D3{32, 1, 1}, [&] { Run(true, In, A, N); });
        launch(G, D3{32, 1, 1}, [&] { Run(false, In, B, N); });
        bool Ok = !std::memcmp(OutA, OutB, sizeof OutA);
        std::printf("%s n %d pad %d grid %u: %s\n", Name, N, Pad, G.x, Ok ? "ok" : "MISMATCH");
        ++(Ok ? Same : Differ);
      }
    }
}

} // namespace

int main() {
  cases<signed char, float>("dequant", [](bool O, const signed char *q, float *out, int n) {
    O ? orig::dequant(q, out, 0.25f, n) : vec::dequant(q, out, 0.25f, n);
  });
  cases<float, unsigned char>("to_bytes", [](bool O, const float *x, unsigned char *y, int n) {
    O ? orig::to_bytes(x, y, n) : vec::to_bytes(x, y, n);
  });
  cases<short, double>("widen", [](bool O, const short *a, double *b, int n) {
    O ? orig::widen(a, b, n) : vec::widen(a, b, n);
  });
  cases<float, double>("promote", [](bool O, const float *in, double *out, int n) {
    O ? orig::promote(in, out, n) : vec::promote(in, out, n);
  });
  for (int Group : {1, 3, 64})
    cases<signed char, float>("dequant_group", [Group](bool O, const signed char *q, float *out,
                                                       int n) {
      static float Scale[4200];
      for (int I = 0; I < 4200; ++I)
        Scale[I] = 0.5f + I % 7;
      O ? orig::dequant_group(q, Scale, out, n, Group) : vec::dequant_group(q, Scale, out, n, Group);
    });
  std::printf("%d same, %d differ\n", Same, Differ);
  return Differ != 0;
}
