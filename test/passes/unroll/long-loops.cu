// REQUIRES: cuda
// More than 64 iterations: 'unroll 4', so a back edge stays. Run-time trip
// counts and loops that have a pragma are left as they are; the rationale
// names each loop.
// RUN: forge-port propose %s --kernel scan --rules=unroll | FileCheck %s --check-prefix=PROP
// RUN: forge-port propose %s --kernel scan --rules=unroll --apply -o %t.cu 2>/dev/null
// RUN: FileCheck %s --check-prefix=FIX --match-full-lines --input-file=%t.cu
// RUN: %nvcc -arch=sm_90 -ptx %t.cu -o - | FileCheck %s --check-prefix=PTX

__global__ void scan(const float *in, float *out, int n) {
  float s = 0.f;
  for (unsigned k = 0; k < 200; k++)
    s += in[k] * s;
  for (int k = 0; k < n; ++k)
    s += in[k];
#pragma unroll 2
  for (int k = 0; k < 16; ++k)
    s -= in[k];
  for (int k = 1; k < 1024; k <<= 1)
    s += in[k];
  out[threadIdx.x] = s;
}
// FIX:      float s = 0.f;
// FIX-NEXT: #pragma unroll 4
// FIX-NEXT: for (unsigned k = 0; k < 200; k++)
// FIX-NEXT: s += in[k] * s;
// FIX-NEXT: for (int k = 0; k < n; ++k)
// FIX-NEXT: s += in[k];
// FIX-NEXT: #pragma unroll 2
// FIX-NEXT: for (int k = 0; k < 16; ++k)
// FIX-NEXT: s -= in[k];
// FIX-NEXT: #pragma unroll
// FIX-NEXT: for (int k = 1; k < 1024; k <<= 1)

// PROP: # expert:unroll: #pragma unroll on 2 loops with a compile-time trip count
// PROP: # line 12 in scan: #pragma unroll 4 (200 iterations)
// PROP: # line 19 in scan: #pragma unroll (10 iterations)
// PTX: bra
