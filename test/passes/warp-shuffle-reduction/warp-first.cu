// REQUIRES: cuda
// The second proposal: every warp reduces its values with shuffles before
// anything is stored, shared memory keeps one partial per warp. An integer
// sum over a constexpr block ('s = s / 2', 'x = x + y' spelling).
// RUN: forge-port propose %s --kernel isum --rules=warp-shuffle-reduction --format=json > %t.json
// RUN: %python %S/../../Inputs/apply_proposal.py %t.json 1 %s > %t.cu
// RUN: FileCheck %s --check-prefix=FIX --match-full-lines --input-file=%t.cu
// RUN: %nvcc -arch=sm_90 -ptx %t.cu -o - | FileCheck %s --check-prefix=PTX
// PTX-COUNT-5: shfl.sync.down.b32
// PTX: bar.sync
// PTX-NOT: bar.sync

constexpr int kBlock = 128;
__global__ void isum(const int *in, int *out) {
  __shared__ int part[kBlock];
  int t = threadIdx.x;
  part[t] = in[blockIdx.x * kBlock + t];
  __syncthreads();
  for (int s = kBlock / 2; s > 0; s = s / 2) {
    if (t < s)
      part[t] = part[t] + part[t + s];
    __syncthreads();
  }
  if (t == 0)
    out[blockIdx.x] = part[0];
}
// FIX:      int val = in[blockIdx.x * kBlock + t];
// FIX-NEXT: // warp-shuffle-reduction: each warp reduces its 32 values in registers;
// FIX-NEXT: // shared memory holds one partial per warp.
// FIX-NEXT: static_assert((kBlock) >= 64 && ((kBlock) & ((kBlock) - 1)) == 0, "warp-shuffle-reduction: needs a power-of-two block of at least 64 threads");
// FIX-NEXT: for (int offset = 16; offset > 0; offset >>= 1)
// FIX-NEXT:   val = val + __shfl_down_sync(0xffffffff, val, offset);
// FIX-NEXT: if ((t & 31) == 0)
// FIX-NEXT:   part[t / 32] = val;
// FIX-NEXT: __syncthreads();
// FIX-NEXT: if (t < 32) {
// FIX-NEXT:   val = t < (kBlock) / 32 ? part[t] : part[0];
// FIX-NEXT:   for (int offset = (kBlock) / 32 / 2; offset > 0; offset >>= 1)
// FIX-NEXT:     val = val + __shfl_down_sync(0xffffffff, val, offset);
// FIX-NEXT:   if (t == 0)
// FIX-NEXT:     out[blockIdx.x] = val;
// FIX-NEXT: }
// FIX-NEXT: }
