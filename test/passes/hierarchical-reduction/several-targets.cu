// REQUIRES: cuda
// Several atomic reductions in one kernel: every target gets its own
// partial, the partials combine side by side (shuffles, then one slot array
// per target), and the block issues one atomic per target. The sum and sum
// of squares, the count and sum, and the three statistics are the GPU
// test's kernels (test/gpu/rules/hierarchical-reduction-several.cu).
// RUN: forge-port propose %s --kernel minmax --block 256 --rules=hierarchical-reduction \
// RUN:   --apply -o %t.cu 2>&1 | FileCheck %s --check-prefix=MINMAX
// RUN: FileCheck %s --check-prefix=MINMAXFIX --match-full-lines --input-file=%t.cu
// RUN: %nvcc -arch=sm_90 -c %t.cu -o %t.o
// RUN: forge-port propose %s --kernel minmax --block 256 --rules=hierarchical-reduction 2>&1 \
// RUN:   | FileCheck %s --check-prefix=ORDER
// RUN: forge-port propose %S/../../gpu/Inputs/rules/atomic_moments.cu --kernel atomic_moments --block 256 --rules=hierarchical-reduction \
// RUN:   --apply -o %t2.cu 2>&1 | FileCheck %s --check-prefix=MOMENTS
// RUN: FileCheck %s --check-prefix=MOMENTSFIX --match-full-lines --input-file=%t2.cu
// RUN: %nvcc -arch=sm_90 -c %t2.cu -o %t2.o
// RUN: forge-port propose %S/../../gpu/Inputs/rules/atomic_count_sum.cu --kernel atomic_count_sum --block 256 --rules=hierarchical-reduction 2>&1 \
// RUN:   | FileCheck %s --check-prefix=COUNT
// RUN: forge-port propose %S/../../gpu/Inputs/rules/atomic_count_sum.cu --kernel atomic_count_sum --block 256 --rules=hierarchical-reduction \
// RUN:   --apply -o %t3.cu 2>&1 | FileCheck %s --check-prefix=APPLIED
// RUN: %nvcc -arch=sm_90 -c %t3.cu -o %t3.o
// RUN: forge-port propose %s --kernel minmax_restrict --block 256 --rules=hierarchical-reduction \
// RUN:   --apply -o %t4.cu 2>&1 | FileCheck %s --check-prefix=RESTRICT
// RUN: %nvcc -arch=sm_90 -c %t4.cu -o %t4.o
// RUN: forge-port propose %s --kernel minmax_launched --block 256 --rules=hierarchical-reduction \
// RUN:   2>&1 | FileCheck %s --check-prefix=LAUNCHED
// RUN: forge-port propose %s --kernel minmax_loop --block 256 --rules=hierarchical-reduction \
// RUN:   --assume-no-alias 2>&1 | FileCheck %s --check-prefix=PROMISE
// RUN: forge-port propose %S/../../gpu/Inputs/rules/atomic_stats.cu --kernel atomic_stats --block 256 --rules=hierarchical-reduction \
// RUN:   --apply -o %t6.cu 2>&1 | FileCheck %s --check-prefix=STATS
// RUN: FileCheck %s --check-prefix=STATSFIX --match-full-lines --input-file=%t6.cu
// RUN: %nvcc -arch=sm_90 -c %t6.cu -o %t6.o
// RUN: forge-port propose %s --kernel pair_argmax --block 256 --rules=hierarchical-reduction \
// RUN:   --apply -o %t7.cu 2>&1 | FileCheck %s --check-prefix=PAIR
// RUN: %nvcc -arch=sm_90 -c %t7.cu -o %t7.o
// RUN: forge-port propose %s --kernel float_range --block 256 --rules=hierarchical-reduction \
// RUN:   --apply -o %t8.cu 2>&1 | FileCheck %s --check-prefix=FLOATS
// RUN: FileCheck %s --check-prefix=FLOATSFIX --input-file=%t8.cu
// RUN: %nvcc -arch=sm_90 -c %t8.cu -o %t8.o
// Refusals, each with its reason.
// RUN: not forge-port propose %s --kernel minmax_loop --block 256 --rules=hierarchical-reduction 2>&1 | FileCheck %s --check-prefix=LOOP
// RUN: not forge-port propose %s --kernel same_target --block 256 --rules=hierarchical-reduction 2>&1 | FileCheck %s --check-prefix=SAME
// RUN: not forge-port propose %s --kernel sum_and_hist --block 256 --rules=hierarchical-reduction 2>&1 | FileCheck %s --check-prefix=HIST
// RUN: not forge-port propose %s --kernel ticket --block 256 --rules=hierarchical-reduction 2>&1 | FileCheck %s --check-prefix=OLD
// RUN: not forge-port propose %s --kernel alternating --block 256 --rules=hierarchical-reduction 2>&1 | FileCheck %s --check-prefix=ALT
// RUN: not forge-port propose %s --kernel unknown_offset --block 256 --rules=hierarchical-reduction 2>&1 | FileCheck %s --check-prefix=OFFSET
// RUN: not forge-port propose %s --kernel also_stores --block 256 --rules=hierarchical-reduction 2>&1 | FileCheck %s --check-prefix=STORE

// Min and max into two pointers that may be the same memory: each thread
// issues each atomic once, in source order, so the block's minimum then its
// maximum is an order the original's atomics could arrive in.
__global__ void minmax(const int *v, int n, int *lo, int *hi) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) { atomicMin(lo, v[i]); atomicMax(hi, v[i]); }
}
// MINMAX: forge-port: note: applied expert:hierarchical-reduction: one atomicMin and one atomicMax per block: partials in registers, combined by warp shuffles and shared memory, the guard's blocks strided over a capped grid
// ORDER: # expert:hierarchical-reduction: one atomicMin and one atomicMax per block: {{.*}}
// ORDER: # {{.*}}The result is exact{{.*}} The targets of 'atomicMin' at line {{[0-9]+}} (minimum) and 'atomicMax' at line {{[0-9]+}} (maximum) are not shown to be different memory (no launch of 'minmax' in this file shows that 'lo' and 'hi' point into distinct allocations, and they are not both __restrict__); were they the same, the block's minimum and then its maximum is one order in which the original's atomics could arrive, since every thread issues each of them at most once, in this order.
// MINMAXFIX:      __global__ void minmax(const int *v, int n, int *lo, int *hi) {
// MINMAXFIX-NEXT:   // hierarchical-reduction: one atomicMin and one atomicMax per block.
// MINMAXFIX-NEXT:   // Every thread keeps a partial per target in registers; the warps, then the
// MINMAXFIX-NEXT:   // block, combine the partials.
// MINMAXFIX-NEXT:   int partial_lo = 2147483647;
// MINMAXFIX-NEXT:   int partial_hi = (-2147483647 - 1);
// MINMAXFIX-NEXT:   // The original body, for one block of the original grid.
// MINMAXFIX-NEXT:   auto contribute = [&](unsigned bx) {
// MINMAXFIX-NEXT:     int i = bx * blockDim.x + threadIdx.x;
// MINMAXFIX-NEXT:     if (i < n) { partial_lo = min(partial_lo, v[i]); partial_hi = max(partial_hi, v[i]); }
// MINMAXFIX-NEXT:   };
// MINMAXFIX-NEXT:   {
// MINMAXFIX-NEXT:     // The blocks along x that may pass 'i < n'.
// MINMAXFIX-NEXT:     const long long limit_x = (long long)n;
// MINMAXFIX-NEXT:     const long long blocks_x = limit_x > 0 ? (limit_x + (long long)blockDim.x - 1) / ((long long)blockDim.x) : 0;
// MINMAXFIX-NEXT:     const long long grid_blocks = (long long)gridDim.x;
// MINMAXFIX-NEXT:     long long vb = (long long)blockIdx.x;
// MINMAXFIX-NEXT:     for (; vb + 3 * grid_blocks < blocks_x; vb += 4 * grid_blocks) {
// MINMAXFIX-NEXT:       contribute((unsigned)vb);
// MINMAXFIX-NEXT:       contribute((unsigned)(vb + grid_blocks));
// MINMAXFIX-NEXT:       contribute((unsigned)(vb + 2 * grid_blocks));
// MINMAXFIX-NEXT:       contribute((unsigned)(vb + 3 * grid_blocks));
// MINMAXFIX-NEXT:     }
// MINMAXFIX-NEXT:     for (; vb < blocks_x; vb += grid_blocks)
// MINMAXFIX-NEXT:       contribute((unsigned)vb);
// MINMAXFIX-NEXT:   }
// MINMAXFIX-NEXT:   // The block's partials: lanes by shuffles, warps through shared memory.
// MINMAXFIX-NEXT:   {
// MINMAXFIX-NEXT:     const unsigned threads = blockDim.x * blockDim.y * blockDim.z;
// MINMAXFIX-NEXT:     if (threads % 32u != 0u) {
// MINMAXFIX-NEXT:       // A partial warp cannot shuffle with a full mask: one atomic per thread and target.
// MINMAXFIX-NEXT:       atomicMin(lo, partial_lo);
// MINMAXFIX-NEXT:       atomicMax(hi, partial_hi);
// MINMAXFIX-NEXT:     } else {
// MINMAXFIX-NEXT:       __shared__ int warp_partials_lo[32];
// MINMAXFIX-NEXT:       __shared__ int warp_partials_hi[32];
// MINMAXFIX-NEXT:       const unsigned t = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
// MINMAXFIX-NEXT:       for (int offset = 16; offset > 0; offset >>= 1) {
// MINMAXFIX-NEXT:         partial_lo = min(partial_lo, __shfl_down_sync(0xffffffffu, partial_lo, offset));
// MINMAXFIX-NEXT:         partial_hi = max(partial_hi, __shfl_down_sync(0xffffffffu, partial_hi, offset));
// MINMAXFIX-NEXT:       }
// MINMAXFIX-NEXT:       if (t % 32u == 0u) {
// MINMAXFIX-NEXT:         warp_partials_lo[t / 32u] = partial_lo;
// MINMAXFIX-NEXT:         warp_partials_hi[t / 32u] = partial_hi;
// MINMAXFIX-NEXT:       }
// MINMAXFIX-NEXT:       __syncthreads();
// MINMAXFIX-NEXT:       if (t < 32u) {
// MINMAXFIX-NEXT:         partial_lo = t < threads / 32u ? warp_partials_lo[t] : 2147483647;
// MINMAXFIX-NEXT:         partial_hi = t < threads / 32u ? warp_partials_hi[t] : (-2147483647 - 1);
// MINMAXFIX-NEXT:         for (int offset = 16; offset > 0; offset >>= 1) {
// MINMAXFIX-NEXT:           partial_lo = min(partial_lo, __shfl_down_sync(0xffffffffu, partial_lo, offset));
// MINMAXFIX-NEXT:           partial_hi = max(partial_hi, __shfl_down_sync(0xffffffffu, partial_hi, offset));
// MINMAXFIX-NEXT:         }
// MINMAXFIX-NEXT:         if (t == 0u) {
// MINMAXFIX-NEXT:           atomicMin(lo, partial_lo);
// MINMAXFIX-NEXT:           atomicMax(hi, partial_hi);
// MINMAXFIX-NEXT:         }
// MINMAXFIX-NEXT:       }
// MINMAXFIX-NEXT:     }
// MINMAXFIX-NEXT:   }

// atomic_moments: a sum and a sum of squares into s[0] and s[1], one atomic each
// per element of a grid-stride loop (the same operator: any aliasing is fine).
// MOMENTS: forge-port: note: applied expert:hierarchical-reduction: one atomicAdd per block into each of 2 targets: partials in registers, combined by warp shuffles and shared memory, the loop 4 iterations at a time
// MOMENTS: forge-port: note: hierarchical-reduction: spec: grid.x -> FORGE_WAVES * 132 * min(32, 2048 / (256))
// MOMENTS: forge-port: note: hierarchical-reduction: spec: why: {{.*}} so any grid computes the same sum of each of the 2 targets; {{.*}}
// MOMENTSFIX:      float partial_s0 = 0.0f;
// MOMENTSFIX-NEXT: float partial_s1 = 0.0f;
// MOMENTSFIX-NEXT: {
// MOMENTSFIX-NEXT:   // hierarchical-reduction: 4 iterations at a time, so that their loads overlap.
// MOMENTSFIX-NEXT:   auto step = [&](int i) {
// MOMENTSFIX-NEXT:     float v = x[i];
// MOMENTSFIX-NEXT:     partial_s0 += v;
// MOMENTSFIX-NEXT:     partial_s1 += v * v;
// MOMENTSFIX-NEXT:   };
// MOMENTSFIX:        atomicAdd(&s[0], partial_s0);
// MOMENTSFIX-NEXT:   atomicAdd(&s[1], partial_s1);
// MOMENTSFIX:        __shared__ float warp_partials_s0[32];
// MOMENTSFIX-NEXT:   __shared__ float warp_partials_s1[32];
// MOMENTSFIX:          if (t == 0u) {
// MOMENTSFIX-NEXT:       atomicAdd(&s[0], partial_s0);
// MOMENTSFIX-NEXT:       atomicAdd(&s[1], partial_s1);
// MOMENTSFIX-NEXT:     }

// atomic_count_sum: an int count and a float sum, accumulators of a loop, into
// two pointers that may be one; each thread issues each atomic once.
// COUNT: # {{.*}}The floating-point sum is re-associated{{.*}} The targets of 'atomicAdd' at line {{[0-9]+}} (sum of int) and 'atomicAdd' at line {{[0-9]+}} (sum of float) are not shown to be different memory ({{.*}}); were they the same, the block's sum of int and then its sum of float is one order in which the original's atomics could arrive, {{.*}}
// COUNT: # spec: grid.x -> FORGE_WAVES * 132 * min(32, 2048 / (256))
// APPLIED: forge-port: note: applied expert:hierarchical-reduction: one atomicAdd per block into each of 2 targets: partials in registers, combined by warp shuffles and shared memory, the loop 4 iterations at a time

// Min and max in a grid-stride loop into __restrict__ pointers.
__global__ void minmax_restrict(const int *__restrict__ v, int n, int *__restrict__ lo,
                                int *__restrict__ hi) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    atomicMin(lo, v[i]);
    atomicMax(hi, v[i]);
  }
}
// RESTRICT: forge-port: note: applied expert:hierarchical-reduction: one atomicMin and one atomicMax per block: partials in registers, combined by warp shuffles and shared memory, the loop 4 iterations at a time
// RESTRICT: forge-port: note: hierarchical-reduction: spec: grid.x -> FORGE_WAVES * 132 * min(32, 2048 / (256))

// The same without __restrict__, in a loop: declined, unless the launches
// in the file show distinct allocations or the user promises them.
__global__ void minmax_loop(const int *v, int n, int *lo, int *hi) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    atomicMin(lo, v[i]);
    atomicMax(hi, v[i]);
  }
}
__global__ void minmax_launched(const int *v, int n, int *lo, int *hi) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    atomicMin(lo, v[i]);
    atomicMax(hi, v[i]);
  }
}
void run_minmax(const int *v, int n) {
  int *lo, *hi;
  cudaMalloc(&lo, sizeof(int));
  cudaMalloc(&hi, sizeof(int));
  minmax_launched<<<264, 256>>>(v, n, lo, hi);
}
// LAUNCHED: # {{.*}} The targets of 'atomicMin' at line {{[0-9]+}} (minimum) and 'atomicMax' at line {{[0-9]+}} (maximum) are different memory: the 1 launch(es) in this file pass distinct allocations for 'lo' and 'hi'.
// LAUNCHED: # spec: grid.x -> FORGE_WAVES * 132 * min(32, 2048 / (256))
// PROMISE: # {{.*}} The targets of 'atomicMin' at line {{[0-9]+}} (minimum) and 'atomicMax' at line {{[0-9]+}} (maximum) are different memory: that 'lo' and 'hi' do not overlap is the user's promise (--assume-no-alias).
// LOOP: forge-port: note: hierarchical-reduction: not applicable: 'atomicMin' at line {{[0-9]+}} (minimum) and 'atomicMax' at line {{[0-9]+}} (maximum) may update the same memory (no launch of 'minmax_loop' in this file shows that 'lo' and 'hi' point into distinct allocations, and they are not both __restrict__), and 'atomicMin' at line {{[0-9]+}} runs in a loop: each thread would alternate between the two operators, an order that one atomic per block and target cannot keep; mark both pointers __restrict__ or pass --assume-no-alias to promise they differ

// atomic_stats: three elements of one array under different conditions; the
// two atomics into st[1] share one partial.
// STATS: forge-port: note: applied expert:hierarchical-reduction: one atomicAdd into each of 2 targets and one atomicMax per block: partials in registers, combined by warp shuffles and shared memory, the guard's blocks strided over a capped grid
// STATSFIX:      unsigned long long partial_st0 = 0ull;
// STATSFIX-NEXT: unsigned long long partial_st1 = 0ull;
// STATSFIX-NEXT: unsigned long long partial_st2 = 0ull;
// STATSFIX-NEXT: // The original body, for one block of the original grid.
// STATSFIX-NEXT: auto contribute = [&](unsigned bx) {
// STATSFIX-NEXT:   int i = bx * blockDim.x + threadIdx.x;
// STATSFIX-NEXT:   if (i >= n)
// STATSFIX-NEXT:     return;
// STATSFIX-NEXT:   partial_st0 += 1ull;
// STATSFIX-NEXT:   if (x[i] > t)
// STATSFIX-NEXT:     partial_st1 += (unsigned long long)x[i];
// STATSFIX-NEXT:   else
// STATSFIX-NEXT:     partial_st1 += 1ull;
// STATSFIX-NEXT:   partial_st2 = max(partial_st2, (unsigned long long)(x[i] & 0xff));
// STATSFIX-NEXT: };
// STATSFIX:        if (t2 == 0u) {
// STATSFIX-NEXT:     atomicAdd(&st[0], partial_st0);
// STATSFIX-NEXT:     atomicAdd(&st[1], partial_st1);
// STATSFIX-NEXT:     atomicMax(&st[2], partial_st2);
// STATSFIX-NEXT:   }

// A value and its index reduced separately: two maxima (not an argmax),
// which is what the rewrite computes too.
__global__ void pair_argmax(const float *x, float *best, int *where, int n) {
  float bv = -1e30f;
  int bi = -1;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    if (x[i] > bv) { bv = x[i]; bi = i; }
  atomicMax((int *)best, __float_as_int(bv));
  atomicMax(where, bi);
}
// PAIR: forge-port: note: applied expert:hierarchical-reduction: one atomicMax per block into each of 2 targets: partials in registers, combined by warp shuffles and shared memory

// A float maximum and minimum through the float-order pairs of integer
// atomics, two device functions.
__device__ void atomic_max_float(float *addr, float v) {
  if (__float_as_int(v) >= 0)
    atomicMax((int *)addr, __float_as_int(v));
  else
    atomicMin((unsigned *)addr, __float_as_uint(v));
}
__device__ void atomic_min_float(float *addr, float v) {
  if (__float_as_int(v) >= 0)
    atomicMin((int *)addr, __float_as_int(v));
  else
    atomicMax((unsigned *)addr, __float_as_uint(v));
}
__global__ void float_range(const float *x, int n, float *mx, float *mn) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    atomic_max_float(mx, x[i]);
    atomic_min_float(mn, x[i]);
  }
}
// FLOATS: forge-port: note: applied expert:hierarchical-reduction: one atomic_max_float and one atomic_min_float per block: {{.*}}
// FLOATSFIX: float partial_mx = __int_as_float(0xff800000);
// FLOATSFIX-NEXT: float partial_mn = __int_as_float(0x7f800000);
// FLOATSFIX: partial_mx = fmaxf(partial_mx, x[i]);
// FLOATSFIX-NEXT: partial_mn = fminf(partial_mn, x[i]);
// FLOATSFIX: partial_mn = fminf(partial_mn, __shfl_down_sync(0xffffffffu, partial_mn, offset));
// FLOATSFIX: if (t == 0u) {
// FLOATSFIX-NEXT: atomic_max_float(mx, partial_mx);
// FLOATSFIX-NEXT: atomic_min_float(mn, partial_mn);

// Refusals.

// Two operators into one address.
__global__ void same_target(const int *v, int n, int *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    atomicAdd(out, v[i]);
    atomicMax(out, v[i]);
  }
}
// SAME: forge-port: note: hierarchical-reduction: not applicable: 'atomicAdd' at line {{[0-9]+}} (sum) and 'atomicMax' at line {{[0-9]+}} (maximum) update the same address 'out[0]' with different operators; the result depends on the order in which they arrive, so they are not combined

// A sum and a histogram.
__global__ void sum_and_hist(const int *x, int n, int *sum, int *bins) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    atomicAdd(sum, x[i]);
    atomicAdd(&bins[x[i] & 63], 1);
  }
}
// HIST: forge-port: note: hierarchical-reduction: not applicable: 'atomicAdd' at line {{[0-9]+}} goes to a data-dependent address (a histogram or a scatter): {{.*}}

// The second atomic's old value is used.
__global__ void ticket(const int *x, int n, int *sum, int *next) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    atomicAdd(sum, x[i]);
    int k = atomicAdd(next, 1);
    if (k == 0)
      __trap();
  }
}
// OLD: forge-port: note: hierarchical-reduction: not applicable: the value 'atomicAdd' at line {{[0-9]+}} returns is used; it depends on the order of the atomics

// A sum, a maximum, then the sum again, into pointers that may be one.
__global__ void alternating(const int *x, int n, int *a, int *b) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    atomicAdd(a, x[i]);
    atomicMax(b, x[i]);
    atomicAdd(a, 1);
  }
}
// ALT: forge-port: note: hierarchical-reduction: not applicable: 'atomicAdd' at line {{[0-9]+}} (sum) and 'atomicMax' at line {{[0-9]+}} (maximum) may update the same memory ({{.*}}), and the kernel's atomics into them alternate in the source, an order that one atomic per block and target cannot keep; mark both pointers __restrict__ or pass --assume-no-alias to promise they differ

// Two elements of one array at a distance the kernel does not know.
__global__ void unknown_offset(const int *x, int n, int k, int *s) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    atomicMin(&s[0], x[i]);
    atomicMax(&s[k], x[i]);
  }
}
// OFFSET: forge-port: note: hierarchical-reduction: not applicable: 'atomicMin' at line {{[0-9]+}} (minimum) and 'atomicMax' at line {{[0-9]+}} (maximum) may update the same memory ('s[0]' and 's[k]' may be the same element of 's'), and 'atomicMin' at line {{[0-9]+}} runs in a loop: each thread would alternate between the two operators, an order that one atomic per block and target cannot keep{{$}}

// One atomic also stores elsewhere.
__global__ void also_stores(const int *x, int n, int *lo, int *hi, int *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    atomicMin(lo, x[i]);
    atomicMax(hi, x[i]);
    y[i] = x[i];
  }
}
// STORE: forge-port: note: hierarchical-reduction: not applicable: the kernel also writes 'y' (line {{[0-9]+}}: y[i]); only a kernel whose one effect is the reduction is rewritten
