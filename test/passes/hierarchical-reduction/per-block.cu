// REQUIRES: cuda
// A target that differs between blocks but not within one (out[blockIdx.x],
// a row's slot): one atomic per block into it; the blocks keep their
// ranges, so the grid stays.
// RUN: forge-port propose %s --kernel per_block --block 256 --rules=hierarchical-reduction \
// RUN:   --apply -o %t.cu 2>&1 | FileCheck %s --check-prefix=NOTE
// RUN: FileCheck %s --check-prefix=FIX --match-full-lines --input-file=%t.cu
// RUN: %nvcc -arch=sm_90 -c %t.cu -o %t.o
// RUN: forge-port propose %s --kernel row_sums --block 128 --rules=hierarchical-reduction \
// RUN:   --apply -o %t2.cu 2>&1 | FileCheck %s --check-prefix=ROW
// RUN: FileCheck %s --check-prefix=ROWFIX --match-full-lines --input-file=%t2.cu
// RUN: %nvcc -arch=sm_90 -c %t2.cu -o %t2.o

__global__ void per_block(const float *x, float *partials, int n) {
  size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicAdd(&partials[blockIdx.x], x[i]);
}
// NOTE: forge-port: note: applied expert:hierarchical-reduction: one atomicAdd per block: partials in registers, combined by warp shuffles and shared memory
// NOTE-NOT: spec:
// FIX:      __global__ void per_block(const float *x, float *partials, int n) {
// FIX-NEXT:   // hierarchical-reduction: one atomicAdd per block. Every thread keeps a partial in a register;
// FIX-NEXT:   // the warps, then the block, combine the partials.
// FIX-NEXT:   float partial = 0.0f;
// FIX-NEXT:   size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
// FIX-NEXT:   if (i < n)
// FIX-NEXT:     partial += x[i];
// FIX-NEXT:   // The block's partials: lanes by shuffles, warps through shared memory.
// FIX:          atomicAdd(&partials[blockIdx.x], partial);
// FIX:            atomicAdd(&partials[blockIdx.x], partial);

// One block per row (blockIdx.y), a block-stride loop over the columns: the
// slot is named through the index form, since 'row' is a local.
__global__ void row_sums(const float *a, float *sums, int cols) {
  int row = blockIdx.y;
  float s = 0;
  for (int c = threadIdx.x; c < cols; c += blockDim.x)
    s += a[row * cols + c];
  atomicAdd(sums + row, s);
}
// ROW: forge-port: note: applied expert:hierarchical-reduction: one atomicAdd per block: {{.*}}, the loop 4 iterations at a time
// ROWFIX:         auto step = [&](int c) { s += a[row * cols + c]; };
// ROWFIX:           atomicAdd(&sums[blockIdx.y], partial);
