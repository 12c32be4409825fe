// REQUIRES: cuda
// A templated max whose result every thread reads after the tree: the first
// warp writes it back to sm[0] and a barrier publishes it. The block size
// comes from the instantiation; a static_assert keeps other sizes out.
// RUN: forge-port propose %s --kernel shift_by_max --rules=warp-shuffle-reduction \
// RUN:   --apply -o %t.cu 2>&1 | FileCheck %s --check-prefix=NOTE
// RUN: FileCheck %s --check-prefix=FIX --match-full-lines --input-file=%t.cu
// RUN: %nvcc -arch=sm_90 -ptx %t.cu -o - | FileCheck %s --check-prefix=PTX
// NOTE: forge-port: note: applied expert:warp-shuffle-reduction
// PTX: shfl.sync.down.b32
// PTX: max.f32

template <int BLOCK>
__global__ void shift_by_max(const float *in, float *out) {
  __shared__ float sm[BLOCK];
  sm[threadIdx.x] = in[blockIdx.x * BLOCK + threadIdx.x];
  __syncthreads();
  for (int s = BLOCK / 2; s > 0; s /= 2) {
    if (threadIdx.x < s)
      sm[threadIdx.x] = fmaxf(sm[threadIdx.x], sm[threadIdx.x + s]);
    __syncthreads();
  }
  out[blockIdx.x * BLOCK + threadIdx.x] = in[blockIdx.x * BLOCK + threadIdx.x] - sm[0];
}
template __global__ void shift_by_max<512>(const float *, float *);
// FIX:      for (int s = BLOCK / 2; s > 32; s /= 2) {
// FIX:      if (threadIdx.x < 32) {
// FIX-NEXT:   // warp-shuffle-reduction: steps s = 32 .. 1 in the first warp, in registers.
// FIX-NEXT:   static_assert((BLOCK) >= 64 && ((BLOCK) & ((BLOCK) - 1)) == 0, "warp-shuffle-reduction: needs a power-of-two block of at least 64 threads");
// FIX-NEXT:   float val = fmaxf(sm[threadIdx.x], sm[threadIdx.x + 32]);
// FIX-NEXT:   for (int offset = 16; offset > 0; offset >>= 1)
// FIX-NEXT:     val = fmaxf(val, __shfl_down_sync(0xffffffff, val, offset));
// FIX-NEXT:   if (threadIdx.x == 0)
// FIX-NEXT:     sm[0] = val;
// FIX-NEXT: }
// FIX-NEXT: __syncthreads();
// FIX-NEXT: out[blockIdx.x * BLOCK + threadIdx.x] = in[blockIdx.x * BLOCK + threadIdx.x] - sm[0];
