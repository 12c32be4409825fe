// REQUIRES: cuda
// A float sum over blockDim.x with the result written by thread 0: the tree
// stops at one warp, the first warp finishes with shuffles, and the output
// statement moves into the warp's block, reading the register.
// RUN: forge-port propose %s --kernel block_sum --block 256 --rules=warp-shuffle-reduction \
// RUN:   --apply -o %t.cu 2>&1 | FileCheck %s --check-prefix=NOTE
// RUN: FileCheck %s --check-prefix=FIX --match-full-lines --input-file=%t.cu
// RUN: %nvcc -arch=sm_90 -ptx %t.cu -o - | FileCheck %s --check-prefix=PTX
// NOTE: forge-port: note: applied expert:warp-shuffle-reduction: the last 6 steps of the tree reduction over 'sdata' as warp shuffles
// The tree's barriers come first, then only shuffles:
// PTX: bar.sync
// PTX-COUNT-5: shfl.sync.down.b32
// PTX-NOT: bar.sync

__global__ void block_sum(const float *in, float *out, int n) {
  __shared__ float sdata[256];
  unsigned tid = threadIdx.x;
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  sdata[tid] = i < n ? in[i] : 0.0f;
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s)
      sdata[tid] += sdata[tid + s];
    __syncthreads();
  }
  if (tid == 0)
    out[blockIdx.x] = sdata[0];
}
// FIX:      for (unsigned s = blockDim.x / 2; s > 32; s >>= 1) {
// FIX-NEXT:   if (tid < s)
// FIX-NEXT:     sdata[tid] += sdata[tid + s];
// FIX-NEXT:   __syncthreads();
// FIX-NEXT: }
// FIX-NEXT: if (tid < 32) {
// FIX-NEXT:   // warp-shuffle-reduction: steps s = 32 .. 1 in the first warp, in registers.
// FIX-NEXT:   float val = sdata[tid] + sdata[tid + 32];
// FIX-NEXT:   for (int offset = 16; offset > 0; offset >>= 1)
// FIX-NEXT:     val += __shfl_down_sync(0xffffffff, val, offset);
// FIX-NEXT:   if (tid == 0)
// FIX-NEXT:     out[blockIdx.x] = val;
// FIX-NEXT: }
// FIX-NEXT: }
