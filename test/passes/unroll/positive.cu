// REQUIRES: cuda
// Loops with compile-time trip counts (a template parameter, a constexpr
// bound) in the kernel and in a device function it calls get
// '#pragma unroll'. nvcc alone keeps the loop of this heavy body; with the
// pragma no back edge is left.
// RUN: forge-port propose %s --kernel taps --rules=unroll --apply -o %t.cu 2>&1 \
// RUN:   | FileCheck %s --check-prefix=NOTE
// RUN: FileCheck %s --check-prefix=FIX --match-full-lines --input-file=%t.cu
// RUN: %nvcc -arch=sm_90 -ptx %t.cu -o - | FileCheck %s --check-prefix=PTX

constexpr int Taps = 8;

__device__ float dot(const float *a, const float *w) {
  float acc = 0.f;
  for (int k = 0; k < Taps; ++k)
    acc += a[k] * w[k];
  return acc;
}
// FIX:      float acc = 0.f;
// FIX-NEXT: #pragma unroll
// FIX-NEXT: for (int k = 0; k < Taps; ++k)

template <int N>
__global__ void taps(const float *in, const float *w, float *out) {
  float s = 0.f;
  for (int k = 0; k < N; ++k) {
    float a = in[threadIdx.x + k * 7], b = w[k];
    s += sqrtf(a * b + 1.f) * (a + 2.f) + b * a * s + __fdividef(a, b + s) + a * a * a * b - s * s * b;
  }
  out[threadIdx.x] = s + dot(in, w);
}
// FIX:      float s = 0.f;
// FIX-NEXT: #pragma unroll
// FIX-NEXT: for (int k = 0; k < N; ++k) {

template __global__ void taps<24>(const float *, const float *, float *);

// NOTE: forge-port: note: applied expert:unroll: #pragma unroll on 2 loops with a compile-time trip count
// PTX-LABEL: .entry _Z4tapsILi24EEvPKfS1_Pf(
// PTX-NOT: bra
// PTX: ret;
