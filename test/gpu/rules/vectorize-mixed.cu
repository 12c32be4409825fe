// vectorize on maps that mix element sizes (test/gpu/Inputs/rules/
// mixed_maps.cu: int8 to float through char4 and float4, float to bytes
// through float4 and uchar4, short to double through short2 and double2,
// float to double through float2 and double2; 16-bit floats through the
// forge_half4 / forge_bfloat164 the rewrite declares (test/gpu/Inputs/
// rules/half_maps.cu: __hadd, __float2half, a bfloat16 scale); int8 with a
// scale per group
// of 1, 3 and 64 elements, the scale a scalar side read per lane): on the
// GPU the rewrites
// compute bitwise what the originals compute, for lengths that are not
// multiples of the lanes or of the block (1, 7, 1003, 1000003), pointers at
// cudaMalloc's alignment and one element past it (the scalar loop), and the
// rewrite on the original's grid, on a quarter of it (the spec change) and
// on one block. Outputs start as NaN bytes. `check --bench` times dequant
// and to_bytes at 2^26 elements.
// REQUIRES: gpu, cuda
// RUN: rm -rf %t.d && mkdir -p %t.d
// RUN: forge-port propose %S/../Inputs/rules/mixed_maps.cu --kernel dequant --block 256 --rules=vectorize --apply -o %t.d/m1.cu
// RUN: forge-port propose %t.d/m1.cu --kernel to_bytes --block 256 --rules=vectorize --apply -o %t.d/m2.cu
// RUN: forge-port propose %t.d/m2.cu --kernel widen --block 256 --rules=vectorize --apply -o %t.d/m3.cu
// RUN: forge-port propose %t.d/m3.cu --kernel promote --block 256 --rules=vectorize --apply -o %t.d/m4.cu
// RUN: forge-port propose %t.d/m4.cu --kernel dequant_group --block 256 --rules=vectorize --apply -o %t.d/mixed_maps.vec.cu
// RUN: forge-port propose %S/../Inputs/rules/half_maps.cu --kernel hadd --block 256 --rules=vectorize --apply -o %t.d/h1.cu
// RUN: forge-port propose %t.d/h1.cu --kernel to_half --block 256 --rules=vectorize --apply -o %t.d/h2.cu
// RUN: forge-port propose %t.d/h2.cu --kernel bf_scale --block 256 --rules=vectorize --apply -o %t.d/half_maps.vec.cu
// RUN: grep -c "forge_vectors = " %t.d/half_maps.vec.cu | FileCheck %s --check-prefix=COUNT3
// COUNT3: 3
// RUN: grep -c "forge_vectors = " %t.d/mixed_maps.vec.cu | FileCheck %s --check-prefix=COUNT
// COUNT: 5
// RUN: %nvcc -arch=native -O3 -I%S/../Inputs/rules -I%t.d %s -o %t.d/check
// RUN: %t.d/check | FileCheck %s --implicit-check-not=MISMATCH --implicit-check-not=FAIL
// CHECK: dequant n=1000003 +0 grid 3907: ok
// CHECK: dequant n=1000003 +1 grid 977: ok
// CHECK: to_bytes n=1003 +1 grid 1: ok
// CHECK: widen n=1000003 +0 grid 977: ok
// CHECK: promote n=7 +1 grid 1: ok
// CHECK: dequant_group 64 n=1000003 +1 grid 1: ok
// CHECK: hadd n=1000003 +1 grid 977: ok
// CHECK: to_half n=1003 +0 grid 1: ok
// CHECK: bf_scale n=7 +1 grid 1: ok
// CHECK: comparisons: 240
// CHECK-NEXT: PASS
#include "check.h"

// The 16-bit float headers first, so that the kernels' own includes inside
// the namespaces below declare nothing there.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cstring>
#include <string>

namespace orig {
#include "mixed_maps.cu"
} // namespace orig
namespace vec {
#include "mixed_maps.vec.cu"
} // namespace vec
namespace origh {
#include "half_maps.cu"
} // namespace origh
namespace vech {
#include "half_maps.vec.cu"
} // namespace vech

namespace {

int Comparisons = 0;

/// Run(Original?, grid, In, Out, n) for each length, offset and grid; the
/// outputs compared bit for bit.
template <typename TIn, typename TOut, typename F> bool cases(const char *Name, F Run) {
  bool Ok = true;
  for (int N : {1, 7, 1003, 1000003})
    for (int Off : {0, 1}) {
      auto H = check::random<double>(N + 4, 3 + N, -120, 120);
      std::vector<TIn> HIn;
      for (double V : H)
        HIn.push_back(TIn(float(V)));
      TIn *In = check::upload(HIn);
      TOut *Out;
      CK(cudaMalloc(&Out, (N + 4) * sizeof(TOut)));
      const unsigned Cover = check::ceilDiv(N, 256);
      check::poison(Out, N + 4);
      Run(true, Cover, In + Off, Out + Off, N);
      CK(cudaDeviceSynchronize());
      auto Ref = check::download(Out, N + 4);
      for (unsigned G : {Cover, check::ceilDiv(Cover, 4), 1u}) {
        check::poison(Out, N + 4);
        Run(false, G, In + Off, Out + Off, N);
        CK(cudaGetLastError());
        CK(cudaDeviceSynchronize());
        auto Got = check::download(Out, N + 4);
        bool Same = !std::memcmp(Ref.data(), Got.data(), Ref.size() * sizeof(TOut));
        std::printf("%s n=%d +%d grid %u: %s\n", Name, N, Off, G, Same ? "ok" : "MISMATCH");
        ++Comparisons;
        Ok &= Same;
      }
      CK(cudaFree(In));
      CK(cudaFree(Out));
    }
  return Ok;
}

/// dequant and to_bytes at 2^26 elements on their original grids and the
/// rewrites' quarter grids.
void bench() {
  const int N = 1 << 26;
  signed char *Q;
  float *F;
  unsigned char *B;
  CK(cudaMalloc(&Q, N));
  CK(cudaMalloc(&F, size_t(N) * sizeof(float)));
  CK(cudaMalloc(&B, N));
  CK(cudaMemset(Q, 3, N));
  CK(cudaMemset(F, 0, size_t(N) * sizeof(float)));
  const unsigned G = check::ceilDiv(N, 256);
  check::report("dequant 2^26", check::time([&] { orig::dequant<<<G, 256>>>(Q, F, 0.5f, N); }),
                check::time([&] { vec::dequant<<<G / 4, 256>>>(Q, F, 0.5f, N); }));
  check::report("to_bytes 2^26", check::time([&] { orig::to_bytes<<<G, 256>>>(F, B, N); }),
                check::time([&] { vec::to_bytes<<<G / 4, 256>>>(F, B, N); }));
  CK(cudaFree(Q));
  CK(cudaFree(F));
  CK(cudaFree(B));
}

} // namespace

int main(int argc, char **argv) {
  bool Ok = true;
  Ok &= cases<signed char, float>("dequant", [](bool O, unsigned G, const signed char *q, float *out, int n) {
    O ? orig::dequant<<<G, 256>>>(q, out, 0.25f, n) : vec::dequant<<<G, 256>>>(q, out, 0.25f, n);
  });
  Ok &= cases<float, unsigned char>("to_bytes", [](bool O, unsigned G, const float *x, unsigned char *y, int n) {
    O ? orig::to_bytes<<<G, 256>>>(x, y, n) : vec::to_bytes<<<G, 256>>>(x, y, n);
  });
  Ok &= cases<short, double>("widen", [](bool O, unsigned G, const short *a, double *b, int n) {
    O ? orig::widen<<<G, 256>>>(a, b, n) : vec::widen<<<G, 256>>>(a, b, n);
  });
  Ok &= cases<float, double>("promote", [](bool O, unsigned G, const float *in, double *out, int n) {
    O ? orig::promote<<<G, 256>>>(in, out, n) : vec::promote<<<G, 256>>>(in, out, n);
  });
  for (int Group : {1, 3, 64}) {
    auto HS = check::random<float>(1000003 + 4, 9);
    float *Scale = check::upload(HS);
    std::string Name = "dequant_group " + std::to_string(Group);
    Ok &= cases<signed char, float>(Name.c_str(), [&](bool O, unsigned G, const signed char *q,
                                                      float *out, int n) {
      O ? orig::dequant_group<<<G, 256>>>(q, Scale, out, n, Group)
        : vec::dequant_group<<<G, 256>>>(q, Scale, out, n, Group);
    });
    CK(cudaFree(Scale));
  }
  Ok &= cases<__half, __half>("hadd", [](bool O, unsigned G, const __half *a, __half *c, int n) {
    O ? origh::hadd<<<G, 256>>>(a, a + 1, c, n) : vech::hadd<<<G, 256>>>(a, a + 1, c, n);
  });
  Ok &= cases<float, __half>("to_half", [](bool O, unsigned G, const float *x, __half *y, int n) {
    O ? origh::to_half<<<G, 256>>>(x, y, n) : vech::to_half<<<G, 256>>>(x, y, n);
  });
  Ok &= cases<__nv_bfloat16, float>("bf_scale", [](bool O, unsigned G, const __nv_bfloat16 *x,
                                                   float *y, int n) {
    O ? origh::bf_scale<<<G, 256>>>(x, y, 0.75f, n) : vech::bf_scale<<<G, 256>>>(x, y, 0.75f, n);
  });
  if (check::bench(argc, argv))
    bench();
  std::printf("comparisons: %d\n", Comparisons);
  std::printf("%s\n", Ok ? "PASS" : "FAIL");
  return Ok ? 0 : 1;
}
