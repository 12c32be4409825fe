// REQUIRES: cuda
// Each thread scales 8 consecutive elements: at step k the lanes of a warp
// are 8 elements apart. After the remap the block visits the same 8 * 256
// elements 256 at a time, so each warp instruction covers 32 consecutive
// ones; the grid, the block and the bound check stay.
// RUN: forge-port propose %s --spec %S/Inputs/scale8.json --rules=coalesced-remap > %t.props
// RUN: FileCheck %s --check-prefix=WHY --input-file=%t.props
// RUN: forge-port propose %s --spec %S/Inputs/scale8.json --rules=coalesced-remap --apply -o %t.cu
// RUN: FileCheck %s --check-prefix=FIX --match-full-lines --input-file=%t.cu
// RUN: %nvcc -arch=sm_90 -ptx %t.cu -o - | FileCheck %s --check-prefix=PTX
// WHY: # expert:coalesced-remap: coalesced remap of the per-thread chunk of 8 elements of out, in
// WHY-NOT: # spec:
// PTX-COUNT-8: ld.global.f32
// PTX-NOT: bar.sync

__global__ void scale8(const float *in, float *out, float a, int n) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  int base = t * 8;
  for (int k = 0; k < 8; ++k) {
    int i = base + k;
    if (i < n)
      out[i] = a * in[i] + 1.0f;
  }
}
// FIX:      __global__ void scale8(const float *in, float *out, float a, int n) {
// FIX-NEXT:   // coalesced-remap: the block's 8 * blockDim.x elements, blockDim.x at a time:
// FIX-NEXT:   // at step forge_k the warp takes 32 consecutive ones (thread t took t * 8 + k).
// FIX-NEXT:   #pragma unroll
// FIX-NEXT:   for (int forge_k = 0; forge_k < 8; ++forge_k) {
// FIX-NEXT:     const long long forge_i =
// FIX-NEXT:         8 * (long long)blockIdx.x * blockDim.x + (long long)forge_k * blockDim.x + threadIdx.x;
// FIX-NEXT:     int i = forge_i;
// FIX-NEXT:     if (i < n)
// FIX-NEXT:       out[i] = a * in[i] + 1.0f;
// FIX-NEXT:   }
// FIX-NEXT: }
