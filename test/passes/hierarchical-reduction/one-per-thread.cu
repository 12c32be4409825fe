// REQUIRES: cuda
// One element per thread under a guard that bounds blockIdx: the body
// becomes a function of the block index, run for the blocks the guard
// admits, a grid apart and 4 at a time, so the grid can be capped.
// RUN: forge-port propose %s --kernel dot --spec %S/Inputs/dot.json --rules=hierarchical-reduction \
// RUN:   --apply -o %t.cu 2>&1 | FileCheck %s --check-prefix=NOTE
// RUN: FileCheck %s --check-prefix=FIX --match-full-lines --input-file=%t.cu
// RUN: %nvcc -arch=sm_90 -c %t.cu -o %t.o
// An early return, the index summed the other way round, int max into &res[0].
// RUN: forge-port propose %s --kernel max_early_return --block 128 --rules=hierarchical-reduction \
// RUN:   --apply -o %t2.cu 2>&1 | FileCheck %s --check-prefix=RET
// RUN: FileCheck %s --check-prefix=RETFIX --match-full-lines --input-file=%t2.cu
// RUN: %nvcc -arch=sm_90 -c %t2.cu -o %t2.o
// Two elements per thread: the guard's blocks are ceil_div(n, 2 * blockDim.x).
// RUN: forge-port propose %s --kernel two_per_thread --block 256 --rules=hierarchical-reduction \
// RUN:   --apply -o %t3.cu 2>&1 | FileCheck %s --check-prefix=TWO
// RUN: FileCheck %s --check-prefix=TWOFIX --match-full-lines --input-file=%t3.cu
// RUN: %nvcc -arch=sm_90 -c %t3.cu -o %t3.o
// A spec whose grid does not cover the guard's range: the original leaves
// elements out, so the rule declines.
// RUN: not forge-port propose %s --kernel dot --spec %S/Inputs/dot_short_grid.json --rules=hierarchical-reduction \
// RUN:   2>&1 | FileCheck %s --check-prefix=SHORT
// gridDim in the body: one atomic per block, the grid stays.
// RUN: forge-port propose %s --kernel reads_grid --block 256 --rules=hierarchical-reduction \
// RUN:   --apply -o %t4.cu 2>&1 | FileCheck %s --check-prefix=GRID
// RUN: %nvcc -arch=sm_90 -c %t4.cu -o %t4.o

__global__ void dot(const float *__restrict__ a, const float *__restrict__ b, float *result,
                    unsigned n) {
  unsigned i = blockDim.x * blockIdx.x + threadIdx.x;
  if (i < n) {
    float p = a[i] * b[i];
    atomicAdd(result, p);
  }
}
// NOTE: forge-port: note: applied expert:hierarchical-reduction: one atomicAdd per block: partials in registers, combined by warp shuffles and shared memory, the guard's blocks strided over a capped grid
// NOTE: forge-port: note: hierarchical-reduction: spec: grid.x -> min(ceil_div(N, 256), FORGE_WAVES * 132 * min(32, 2048 / (256)))
// NOTE: forge-port: note: hierarchical-reduction: spec: new tunable FORGE_WAVES in {2, 1, 4, 8, 16}
// NOTE: forge-port: note: hierarchical-reduction: spec: why: every thread runs the original body for the blocks of the original grid that the guard 'i < n' admits, a grid stride apart, so any grid computes the same sum {{.*}}

// FIX:      __global__ void dot(const float *__restrict__ a, const float *__restrict__ b, float *result,
// FIX-NEXT:                     unsigned n) {
// FIX-NEXT:   // hierarchical-reduction: one atomicAdd per block. Every thread keeps a partial in a register;
// FIX-NEXT:   // the warps, then the block, combine the partials.
// FIX-NEXT:   float partial = 0.0f;
// FIX-NEXT:   // The original body, for one block of the original grid.
// FIX-NEXT:   auto contribute = [&](unsigned bx) {
// FIX-NEXT:     unsigned i = blockDim.x * bx + threadIdx.x;
// FIX-NEXT:     if (i < n) {
// FIX-NEXT:       float p = a[i] * b[i];
// FIX-NEXT:       partial += p;
// FIX-NEXT:     }
// FIX-NEXT:   };
// FIX-NEXT:   {
// FIX-NEXT:     // The blocks along x that may pass 'i < n'.
// FIX-NEXT:     const long long limit_x = (long long)n;
// FIX-NEXT:     const long long blocks_x = limit_x > 0 ? (limit_x + (long long)blockDim.x - 1) / ((long long)blockDim.x) : 0;
// FIX-NEXT:     const long long grid_blocks = (long long)gridDim.x;
// FIX-NEXT:     long long vb = (long long)blockIdx.x;
// FIX-NEXT:     for (; vb + 3 * grid_blocks < blocks_x; vb += 4 * grid_blocks) {
// FIX-NEXT:       contribute((unsigned)vb);
// FIX-NEXT:       contribute((unsigned)(vb + grid_blocks));
// FIX-NEXT:       contribute((unsigned)(vb + 2 * grid_blocks));
// FIX-NEXT:       contribute((unsigned)(vb + 3 * grid_blocks));
// FIX-NEXT:     }
// FIX-NEXT:     for (; vb < blocks_x; vb += grid_blocks)
// FIX-NEXT:       contribute((unsigned)vb);
// FIX-NEXT:   }
// FIX-NEXT:   // The block's partials: lanes by shuffles, warps through shared memory.
// FIX:              atomicAdd(result, partial);

__global__ void max_early_return(const int *x, int *res, int n) {
  int tid = threadIdx.x + blockIdx.x * blockDim.x;
  if (tid >= n) return;
  atomicMax(&res[0], x[tid]);
}
// RET: forge-port: note: applied expert:hierarchical-reduction: one atomicMax per block: partials in registers, combined by warp shuffles and shared memory, the guard's blocks strided over a capped grid
// RETFIX:      __global__ void max_early_return(const int *x, int *res, int n) {
// RETFIX:        int partial = (-2147483647 - 1);
// RETFIX-NEXT:   // The original body, for one block of the original grid.
// RETFIX-NEXT:   auto contribute = [&](unsigned bx) {
// RETFIX-NEXT:     int tid = threadIdx.x + bx * blockDim.x;
// RETFIX-NEXT:     if (tid >= n) return;
// RETFIX-NEXT:     partial = max(partial, x[tid]);
// RETFIX-NEXT:   };
// RETFIX:            partial = max(partial, __shfl_down_sync(0xffffffffu, partial, offset));
// RETFIX:            partial = t < threads / 32u ? warp_partials[t] : (-2147483647 - 1);
// RETFIX:              atomicMax(&res[0], partial);

__global__ void two_per_thread(const float *x, float *out, int n) {
  int i = blockIdx.x * (blockDim.x * 2) + threadIdx.x;
  float s = 0.f;
  if (i < n) s += x[i];
  if (i + blockDim.x < n) s += x[i + blockDim.x];
  if (i < n) atomicAdd(out, s);
}
// TWO: forge-port: note: applied expert:hierarchical-reduction: {{.*}} the guard's blocks strided over a capped grid
// TWOFIX:          int i = bx * (blockDim.x * 2) + threadIdx.x;
// TWOFIX:          if (i < n) partial += s;
// TWOFIX:          const long long blocks_x = limit_x > 0 ? (limit_x + 2ll * (long long)blockDim.x - 1) / (2ll * (long long)blockDim.x) : 0;

// SHORT: forge-port: note: hierarchical-reduction: not applicable: the spec launches 1024 blocks along x, fewer than the 131072 that the guard 'i < n' admits: the original leaves elements out, and a grid-independent rewrite would add them

__global__ void reads_grid(const float *x, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int total = gridDim.x * blockDim.x;
  if (i < n) atomicAdd(out, x[i] / total);
}
// GRID: forge-port: note: applied expert:hierarchical-reduction: one atomicAdd per block: partials in registers, combined by warp shuffles and shared memory
// GRID-NOT: spec:
