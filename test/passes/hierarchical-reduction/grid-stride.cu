// REQUIRES: cuda
// A per-thread partial over a grid-stride loop, combined with one atomicAdd
// per thread (the suite's reduce_sum): the loop runs 4 iterations at a time,
// the partials of a block combine by shuffles and shared memory, and the grid
// is capped at FORGE_WAVES waves, since the loop makes the sum the same for
// any grid.
// RUN: forge-port propose %s --kernel sum_loop --spec %S/Inputs/sum.json --rules=hierarchical-reduction \
// RUN:   --apply -o %t.cu 2>&1 | FileCheck %s --check-prefix=NOTE
// RUN: FileCheck %s --check-prefix=FIX --match-full-lines --input-file=%t.cu
// RUN: %nvcc -arch=sm_90 -ptx %t.cu -o - | FileCheck %s --check-prefix=PTX
// The same loop written with a while, size_t and the stride in a local.
// RUN: forge-port propose %s --kernel sum_while --block 512 --rules=hierarchical-reduction \
// RUN:   --apply -o %t2.cu 2>&1 | FileCheck %s --check-prefix=WHILE
// RUN: FileCheck %s --check-prefix=WHILEFIX --match-full-lines --input-file=%t2.cu
// RUN: %nvcc -arch=sm_90 -c %t2.cu -o %t2.o
// The atomic inside the loop (one per element) becomes the register update.
// RUN: forge-port propose %s --kernel atomic_in_loop --block 256 --rules=hierarchical-reduction \
// RUN:   --apply -o %t3.cu 2>&1 | FileCheck %s --check-prefix=INLOOP
// RUN: FileCheck %s --check-prefix=INLOOPFIX --match-full-lines --input-file=%t3.cu
// RUN: %nvcc -arch=sm_90 -c %t3.cu -o %t3.o
// An accumulator that does not start at 0: still one atomic per block, but
// the number of threads changes the sum, so the grid stays.
// RUN: forge-port propose %s --kernel offset_start --block 256 --rules=hierarchical-reduction \
// RUN:   2>&1 | FileCheck %s --check-prefix=OFFSET

__global__ void sum_loop(const float *x, float *out, int n) {
  float acc = 0.0f;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += gridDim.x * blockDim.x)
    acc += x[i];
  atomicAdd(out, acc);
}
// NOTE: forge-port: note: applied expert:hierarchical-reduction: one atomicAdd per block: partials in registers, combined by warp shuffles and shared memory, the loop 4 iterations at a time
// NOTE: forge-port: note: hierarchical-reduction: spec: grid.x -> min(ceil_div((N), BLOCK), FORGE_WAVES * 132 * min(32, 2048 / (BLOCK)))
// NOTE: forge-port: note: hierarchical-reduction: spec: new tunable FORGE_WAVES in {2, 1, 4, 8, 16}
// NOTE: forge-port: note: hierarchical-reduction: spec: why: the grid-stride loop at line {{[0-9]+}} gives each element of its range to one thread for any grid, {{.*}} so any grid computes the same sum;

// FIX:      __global__ void sum_loop(const float *x, float *out, int n) {
// FIX-NEXT:   // hierarchical-reduction: one atomicAdd per block. Every thread keeps a partial in a register;
// FIX-NEXT:   // the warps, then the block, combine the partials.
// FIX-NEXT:   float partial = 0.0f;
// FIX-NEXT:   float acc = 0.0f;
// FIX-NEXT:   {
// FIX-NEXT:     // hierarchical-reduction: 4 iterations at a time, so that their loads overlap.
// FIX-NEXT:     auto step = [&](int i) { acc += x[i]; };
// FIX-NEXT:     long long i2 = blockIdx.x * blockDim.x + threadIdx.x;
// FIX-NEXT:     const long long stride = gridDim.x * blockDim.x;
// FIX-NEXT:     for (; (i2 + 3 * stride) < n; i2 += 4 * stride) {
// FIX-NEXT:       step(i2);
// FIX-NEXT:       step(i2 + stride);
// FIX-NEXT:       step(i2 + 2 * stride);
// FIX-NEXT:       step(i2 + 3 * stride);
// FIX-NEXT:     }
// FIX-NEXT:     for (; i2 < n; i2 += stride)
// FIX-NEXT:       step(i2);
// FIX-NEXT:   }
// FIX-NEXT:   partial += acc;
// FIX-NEXT:   // The block's partials: lanes by shuffles, warps through shared memory.
// FIX-NEXT:   {
// FIX-NEXT:     const unsigned threads = blockDim.x * blockDim.y * blockDim.z;
// FIX-NEXT:     if (threads % 32u != 0u) {
// FIX-NEXT:       // A partial warp cannot shuffle with a full mask: one atomic per thread.
// FIX-NEXT:       atomicAdd(out, partial);
// FIX-NEXT:     } else {
// FIX-NEXT:       __shared__ float warp_partials[32];
// FIX-NEXT:       const unsigned t = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
// FIX-NEXT:       for (int offset = 16; offset > 0; offset >>= 1)
// FIX-NEXT:         partial += __shfl_down_sync(0xffffffffu, partial, offset);
// FIX-NEXT:       if (t % 32u == 0u)
// FIX-NEXT:         warp_partials[t / 32u] = partial;
// FIX-NEXT:       __syncthreads();
// FIX-NEXT:       if (t < 32u) {
// FIX-NEXT:         partial = t < threads / 32u ? warp_partials[t] : 0.0f;
// FIX-NEXT:         for (int offset = 16; offset > 0; offset >>= 1)
// FIX-NEXT:           partial += __shfl_down_sync(0xffffffffu, partial, offset);
// FIX-NEXT:         if (t == 0u)
// FIX-NEXT:           atomicAdd(out, partial);
// FIX-NEXT:       }
// FIX-NEXT:     }
// FIX-NEXT:   }
// FIX-NEXT: }

// Shuffles, one barrier, and the atomics (the fallback's and the block's).
// PTX: shfl.sync.down.b32
// PTX: bar.sync
// PTX: shfl.sync.down.b32
// PTX: {{(atom|red)}}.global.add.f32

__global__ void sum_while(const double *__restrict__ v, double *total, size_t count) {
  size_t k = threadIdx.x + (size_t)blockDim.x * blockIdx.x;
  const size_t step = (size_t)gridDim.x * blockDim.x;
  double s = 0;
  while (k < count) {
    s += v[k] * 0.5;
    k += step;
  }
  atomicAdd(total, s);
}
// WHILE: forge-port: note: applied expert:hierarchical-reduction: one atomicAdd per block: partials in registers, combined by warp shuffles and shared memory
// WHILEFIX:      __global__ void sum_while(const double *__restrict__ v, double *total, size_t count) {
// WHILEFIX:   double partial = 0.0;
// WHILEFIX:   while (k < count) {
// WHILEFIX-NEXT:     s += v[k] * 0.5;
// WHILEFIX-NEXT:     k += step;
// WHILEFIX-NEXT:   }
// WHILEFIX-NEXT:   partial += s;
// WHILEFIX:       __shared__ double warp_partials[32];
// WHILEFIX:           atomicAdd(total, partial);

__global__ void atomic_in_loop(const int *x, int *out, int n) {
  int stride = blockDim.x * gridDim.x;
  for (int i = threadIdx.x + blockIdx.x * blockDim.x; i < n; i += stride)
    atomicAdd(out, x[i]);
}
// INLOOP: forge-port: note: applied expert:hierarchical-reduction: one atomicAdd per block: partials in registers, combined by warp shuffles and shared memory, the loop 4 iterations at a time
// INLOOPFIX:      __global__ void atomic_in_loop(const int *x, int *out, int n) {
// INLOOPFIX-NEXT:   // hierarchical-reduction: one atomicAdd per block. Every thread keeps a partial in a register;
// INLOOPFIX-NEXT:   // the warps, then the block, combine the partials.
// INLOOPFIX-NEXT:   int partial = 0;
// INLOOPFIX-NEXT:   int stride = blockDim.x * gridDim.x;
// INLOOPFIX-NEXT:   {
// INLOOPFIX-NEXT:     // hierarchical-reduction: 4 iterations at a time, so that their loads overlap.
// INLOOPFIX-NEXT:     auto step = [&](int i) { partial += x[i]; };
// INLOOPFIX:          atomicAdd(out, partial);

__global__ void offset_start(const float *x, float *out, int n) {
  float acc = 1.0f;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    acc += x[i];
  atomicAdd(out, acc);
}
// OFFSET: # expert:hierarchical-reduction: one atomicAdd per block
// OFFSET: The grid stays as it is: 'acc' does not start at 0, so the number of threads would change the result.
// OFFSET-NOT: # spec:
