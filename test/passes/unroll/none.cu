// REQUIRES: cuda
// Nothing to unroll: run-time trip counts, a pragma already there.
// RUN: not forge-port propose %s --kernel sum --rules=unroll 2>&1 | FileCheck %s

__global__ void sum(const float *in, float *out, int n) {
  float s = 0.f;
  for (int k = 0; k < n; ++k)
    s += in[k];
#pragma unroll
  for (int k = 0; k < 4; ++k)
    s += in[k];
  for (int k = 0; k < 1; ++k)
    s *= 2.f;
  out[threadIdx.x] = s;
}
// CHECK: forge-port: note: unroll: not applicable: no 'for' loop with a compile-time trip count and no loop pragma (1 already has a pragma; 1 with a trip count known only at run time; 1 with at most one iteration)
