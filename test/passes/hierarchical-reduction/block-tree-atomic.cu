// REQUIRES: cuda
// A per-block tree in shared memory whose result one thread adds with one
// atomic (`sdata[tid] = v; <tree>; if (tid == 0) atomicAdd(result,
// sdata[0]);`) computes what one atomic per thread of v computes, and is
// rewritten as that kernel is: the store into sdata[tid] becomes the
// partial's update, the array, the barriers, the tree and the tail go, and
// the guard's blocks are strided over a capped grid. The rewrites are
// applied one after the other into one file, which nvcc compiles once.
// RUN: forge-port propose %s --kernel dot --block 256 --rules=hierarchical-reduction --apply -o %t.1.cu 2>&1 | FileCheck %s --check-prefix=NOTE
// RUN: forge-port propose %t.1.cu --kernel sum_extern --block 256 --rules=hierarchical-reduction --apply -o %t.2.cu
// RUN: forge-port propose %t.2.cu --kernel sum_interleaved --block 256 --rules=hierarchical-reduction --apply -o %t.3.cu
// RUN: forge-port propose %t.3.cu --kernel count_positive --block 256 --rules=hierarchical-reduction --apply -o %t.4.cu
// RUN: forge-port propose %t.4.cu --kernel max_int --block 256 --rules=hierarchical-reduction --apply -o %t.5.cu
// RUN: forge-port propose %t.5.cu --kernel sum_while --block 256 --rules=hierarchical-reduction --apply -o %t.6.cu
// RUN: forge-port propose %t.6.cu --kernel sum_first_add --block 256 --rules=hierarchical-reduction --apply -o %t.7.cu
// RUN: forge-port propose %t.7.cu --kernel sum_grid_stride --block 256 --rules=hierarchical-reduction --apply -o %t.8.cu
// RUN: forge-port propose %t.8.cu --kernel max_float --block 256 --rules=hierarchical-reduction --apply -o %t.9.cu
// RUN: FileCheck %s --match-full-lines --input-file=%t.9.cu
// RUN: %nvcc -arch=sm_90 -c %t.9.cu -o /dev/null
// RUN: forge-port propose %s --kernel dot --spec %S/Inputs/dot_tree.json --rules=hierarchical-reduction 2>&1 | FileCheck %s --check-prefix=SPEC
// RUN: forge-port propose %s --kernel sum_not_identity --block 256 --rules=hierarchical-reduction 2>&1 | FileCheck %s --check-prefix=KEEP
// NOTE: forge-port: note: applied expert:hierarchical-reduction: one atomicAdd per block instead of the tree over 'cache': partials in registers, combined by warp shuffles and shared memory, the guard's blocks strided over a capped grid
// SPEC: # Each block stored one value per thread into the __shared__ array 'cache', reduced them with a tree (sequential addressing, '+'){{.*}}as one atomicAdd per thread would.{{.*}}instead of the tree's pairs{{.*}}
// SPEC-NEXT: # spec: grid.x -> min(ceil_div(N, 256), FORGE_WAVES * 132 * min(32, 2048 / (256)))
// KEEP: The grid stays as it is: the value stored into 'sdata[tid]' is not 'c ? v : identity' (the sum's identity for the threads a guard rejects), so every block of the original grid contributes.

#include <climits>

// The dot product of the question: a static array, a halving tree.
__global__ void dot(const float *a, const float *b, float *result, int n) {
  __shared__ float cache[256];
  int tid = threadIdx.x;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  cache[tid] = i < n ? a[i] * b[i] : 0.0f;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s) cache[tid] += cache[tid + s];
    __syncthreads();
  }
  if (tid == 0) atomicAdd(result, cache[0]);
}
// CHECK-LABEL: __global__ void dot(const float *a, const float *b, float *result, int n) {
// CHECK-NEXT:   // hierarchical-reduction: one atomicAdd per block. Every thread keeps a partial in a register;
// CHECK-NEXT:   // the warps, then the block, combine the partials.
// CHECK-NEXT:   float partial = 0.0f;
// CHECK-NEXT:   // The original body, for one block of the original grid.
// CHECK-NEXT:   auto contribute = [&](unsigned bx) {
// CHECK-NEXT:     int tid = threadIdx.x;
// CHECK-NEXT:     int i = bx * blockDim.x + threadIdx.x;
// CHECK-NEXT:     partial += i < n ? a[i] * b[i] : 0.0f;
// CHECK-NEXT:   };
// CHECK:          atomicAdd(result, partial);
// CHECK-NOT:    cache
// CHECK:          atomicAdd(result, partial);

// extern __shared__, unsigned indices, a halving tree in another spelling.
__global__ void sum_extern(const float *in, float *out, unsigned n) {
  extern __shared__ float sdata[];
  unsigned tid = threadIdx.x;
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  sdata[tid] = (i < n) ? in[i] : 0;
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s)
      sdata[tid] = sdata[tid] + sdata[tid + s];
    __syncthreads();
  }
  if (tid == 0)
    atomicAdd(out, sdata[0]);
}
// CHECK-LABEL: __global__ void sum_extern(const float *in, float *out, unsigned n) {
// CHECK:          partial += (i < n) ? in[i] : 0;
// CHECK-NOT:    sdata
// CHECK:              atomicAdd(out, partial);

// A doubling tree with interleaved addressing.
__global__ void sum_interleaved(const float *in, float *out, int n) {
  __shared__ float sdata[256];
  unsigned int tid = threadIdx.x;
  unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
  sdata[tid] = (i < n) ? in[i] : 0.0f;
  __syncthreads();
  for (unsigned int s = 1; s < blockDim.x; s *= 2) {
    if (tid % (2 * s) == 0)
      sdata[tid] += sdata[tid + s];
    __syncthreads();
  }
  if (tid == 0) atomicAdd(out, sdata[0]);
}
// CHECK-LABEL: __global__ void sum_interleaved(const float *in, float *out, int n) {
// CHECK:          partial += (i < n) ? in[i] : 0.0f;
// CHECK-NOT:    sdata
// CHECK:              atomicAdd(out, partial);

// An int count under a data test.
__global__ void count_positive(const float *x, unsigned *count, int n) {
  __shared__ unsigned hits[256];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  hits[threadIdx.x] = (i < n && x[i] > 0.0f) ? 1u : 0u;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      hits[threadIdx.x] += hits[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    atomicAdd(count, hits[0]);
}
// CHECK-LABEL: __global__ void count_positive(const float *x, unsigned *count, int n) {
// CHECK:          unsigned int partial = 0u;
// CHECK:            partial += (i < n && x[i] > 0.0f) ? 1u : 0u;
// CHECK:              atomicAdd(count, partial);

// A maximum of ints into atomicMax, INT_MIN for the threads past the end.
__global__ void max_int(const int *v, int *best, int n) {
  __shared__ int m[256];
  int tid = threadIdx.x;
  int i = blockIdx.x * blockDim.x + tid;
  m[tid] = i < n ? v[i] : INT_MIN;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s)
      m[tid] = max(m[tid], m[tid + s]);
    __syncthreads();
  }
  if (tid == 0)
    atomicMax(best, m[0]);
}
// CHECK-LABEL: __global__ void max_int(const int *v, int *best, int n) {
// CHECK:          int partial = (-2147483647 - 1);
// CHECK:            partial = max(partial, i < n ? v[i] : INT_MIN);
// CHECK:                partial = max(partial, __shfl_down_sync(0xffffffffu, partial, offset));
// CHECK:              atomicMax(best, partial);

// A while loop over the stride.
__global__ void sum_while(const double *x, double *total, int n) {
  __shared__ double buf[256];
  int tid = threadIdx.x;
  int i = blockIdx.x * blockDim.x + tid;
  buf[tid] = i < n ? x[i] * x[i] : 0.0;
  __syncthreads();
  int s = blockDim.x / 2;
  while (s > 0) {
    if (tid < s)
      buf[tid] += buf[tid + s];
    __syncthreads();
    s >>= 1;
  }
  if (tid == 0)
    atomicAdd(total, buf[0]);
}
// CHECK-LABEL: __global__ void sum_while(const double *x, double *total, int n) {
// CHECK:          double partial = 0.0;
// CHECK:            partial += i < n ? x[i] * x[i] : 0.0;
// CHECK-NEXT:     };
// CHECK-NOT:    buf
// CHECK:              atomicAdd(total, partial);

// The first add during the load: two elements per thread, each guarded.
__global__ void sum_first_add(const float *in, float *out, unsigned n) {
  __shared__ float sdata[256];
  unsigned tid = threadIdx.x;
  unsigned i = blockIdx.x * (blockDim.x * 2) + threadIdx.x;
  sdata[tid] = (i < n ? in[i] : 0.0f) + (i + blockDim.x < n ? in[i + blockDim.x] : 0.0f);
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s)
      sdata[tid] += sdata[tid + s];
    __syncthreads();
  }
  if (tid == 0)
    atomicAdd(out, sdata[0]);
}
// CHECK-LABEL: __global__ void sum_first_add(const float *in, float *out, unsigned n) {
// CHECK:            unsigned i = bx * (blockDim.x * 2) + threadIdx.x;
// CHECK-NEXT:       partial += (i < n ? in[i] : 0.0f) + (i + blockDim.x < n ? in[i + blockDim.x] : 0.0f);
// CHECK:              atomicAdd(out, partial);

// A grid-stride loop into a register, then the tree: the loop is unrolled.
__global__ void sum_grid_stride(const float *in, float *out, int n) {
  __shared__ float sdata[256];
  float sum = 0.0f;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    sum += in[i];
  sdata[threadIdx.x] = sum;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      sdata[threadIdx.x] += sdata[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    atomicAdd(out, sdata[0]);
}
// CHECK-LABEL: __global__ void sum_grid_stride(const float *in, float *out, int n) {
// CHECK:            auto step = [&](int i) { sum += in[i]; };
// CHECK:          partial += sum;
// CHECK:              atomicAdd(out, partial);

// A float maximum through the float-order pair of integer atomics.
__device__ void atomic_max_float(float *addr, float v) {
  if (__float_as_int(v) >= 0) atomicMax((int *)addr, __float_as_int(v));
  else                        atomicMin((unsigned *)addr, __float_as_uint(v));
}
__global__ void max_float(const float *x, float *m, int n) {
  __shared__ float s_max[256];
  int tid = threadIdx.x;
  int i = blockIdx.x * blockDim.x + tid;
  s_max[tid] = i < n ? x[i] : -INFINITY;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s)
      s_max[tid] = fmaxf(s_max[tid], s_max[tid + s]);
    __syncthreads();
  }
  if (tid == 0)
    atomic_max_float(m, s_max[0]);
}
// CHECK-LABEL: __global__ void max_float(const float *x, float *m, int n) {
// CHECK:          float partial = __int_as_float(0xff800000);
// CHECK:            partial = fmaxf(partial, i < n ? x[i] : -INFINITY);
// CHECK:              atomic_max_float(m, partial);

// Not the identity past the end: rewritten, but every block still runs.
__global__ void sum_not_identity(const float *in, float *out, int n) {
  __shared__ float sdata[256];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  sdata[threadIdx.x] = i < n ? in[i] : 1.0f;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      sdata[threadIdx.x] += sdata[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    atomicAdd(out, sdata[0]);
}

// What is declined, with the reasons in the model's terms.
// RUN: not forge-port propose %s --kernel plus_into_max --block 256 --rules=hierarchical-reduction 2>&1 | FileCheck %s --check-prefix=OP
// RUN: not forge-port propose %s --kernel reads_second --block 256 --rules=hierarchical-reduction 2>&1 | FileCheck %s --check-prefix=SECOND
// RUN: not forge-port propose %s --kernel per_block_too --block 256 --rules=hierarchical-reduction 2>&1 | FileCheck %s --check-prefix=OUT
// RUN: not forge-port propose %s --kernel half_tree --block 256 --rules=hierarchical-reduction 2>&1 | FileCheck %s --check-prefix=HALF
// RUN: not forge-port propose %s --kernel dot --block 100 --rules=hierarchical-reduction 2>&1 | FileCheck %s --check-prefix=POW2
// RUN: not forge-port propose %s --kernel restored --block 256 --rules=hierarchical-reduction 2>&1 | FileCheck %s --check-prefix=AGAIN
// OP: hierarchical-reduction: not applicable: the tree at line {{[0-9]+}} combines with '+', but 'atomicMax' at line {{[0-9]+}} takes the maximum: the block's result is not what one atomic per thread would compute
// SECOND: hierarchical-reduction: not applicable: 'sdata[1]' at line {{[0-9]+}} uses 'sdata' after the tree other than by reading its result 'sdata[0]'; the rewrite keeps no partial results in shared memory
// OUT: hierarchical-reduction: not applicable: the kernel writes 'out[blockIdx.x]' at line {{[0-9]+}} besides 'atomicAdd' at line {{[0-9]+}} of the block's result 'cache[0]'; only a kernel whose one effect is the reduction is rewritten
// HALF: hierarchical-reduction: not applicable: the kernel's shared-memory tree is not a reduction of the whole block the rule follows: the tree at line {{[0-9]+}}: the stride does not start at half the block ('s = blockDim.x / 2' or a constant)
// POW2: hierarchical-reduction: not applicable: the block has 100 threads; a tree that halves it does not reduce every element unless it is a power of two
// AGAIN: hierarchical-reduction: not applicable: 'sdata' is used again at line {{[0-9]+}}: the rule takes each thread's value from one unconditional store 'sdata[tid] = v;' before the tree, and 'sdata' is not used otherwise before it

// A '+' tree into a maximum.
__global__ void plus_into_max(const int *v, int *best, int n) {
  __shared__ int m[256];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  m[threadIdx.x] = i < n ? v[i] : 0;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      m[threadIdx.x] += m[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    atomicMax(best, m[0]);
}

// A partial of the tree besides its result.
__global__ void reads_second(const float *in, float *out, int n) {
  __shared__ float sdata[256];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  sdata[threadIdx.x] = i < n ? in[i] : 0.0f;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      sdata[threadIdx.x] += sdata[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    atomicAdd(out, sdata[0] + sdata[1]);
}

// A per-block output besides the atomic.
__global__ void per_block_too(const float *a, float *out, float *result, int n) {
  __shared__ float cache[256];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  cache[threadIdx.x] = i < n ? a[i] : 0.0f;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      cache[threadIdx.x] += cache[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    out[blockIdx.x] = cache[0];
    atomicAdd(result, cache[0]);
  }
}

// A tree over half the block: the other half's values are left out.
__global__ void half_tree(const float *in, float *out, int n) {
  __shared__ float sdata[256];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  sdata[threadIdx.x] = i < n ? in[i] : 0.0f;
  __syncthreads();
  for (int s = blockDim.x / 4; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      sdata[threadIdx.x] += sdata[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    atomicAdd(out, sdata[0]);
}

// The value is stored, then updated: not one store.
__global__ void restored(const float *in, float *out, int n) {
  __shared__ float sdata[256];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  sdata[threadIdx.x] = 0.0f;
  if (i < n)
    sdata[threadIdx.x] = in[i];
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      sdata[threadIdx.x] += sdata[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    atomicAdd(out, sdata[0]);
}
