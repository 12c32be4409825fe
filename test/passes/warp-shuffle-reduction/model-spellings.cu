// REQUIRES: cuda
// The tree is the kernel model's pattern, not one spelling: a while loop
// over a stride declared before it ("CUDA by Example"), a stride that
// starts at a constant, `blockDim.x >> 1`, a condition that is the stride
// itself, the thread index through a local. Each rewrite compiles; the
// declines name what differs.
// RUN: forge-port propose %s --kernel book_dot --block 256 --rules=warp-shuffle-reduction --format=json > %t.book.json
// RUN: %python %S/../../Inputs/apply_proposal.py %t.book.json 0 %s > %t.book0.cu
// RUN: %python %S/../../Inputs/apply_proposal.py %t.book.json 1 %s > %t.book1.cu
// RUN: FileCheck %s --check-prefix=BOOK0 --input-file=%t.book0.cu
// RUN: FileCheck %s --check-prefix=BOOK1 --input-file=%t.book1.cu
// RUN: %nvcc -arch=sm_90 -ptx %t.book0.cu -o - | FileCheck %s --check-prefix=PTX
// RUN: %nvcc -arch=sm_90 -ptx %t.book1.cu -o %t.book1.ptx
// RUN: forge-port propose %s --kernel const_start --rules=warp-shuffle-reduction --apply -o %t.const.cu 2>&1 | FileCheck %s --check-prefix=CONST
// RUN: FileCheck %s --check-prefix=CONSTFIX --input-file=%t.const.cu
// RUN: %nvcc -arch=sm_90 -ptx %t.const.cu -o %t.const.ptx
// RUN: forge-port propose %s --kernel shift_start --block 512 --rules=warp-shuffle-reduction --apply -o %t.shift.cu 2>&1 | FileCheck %s --check-prefix=SHIFT
// RUN: FileCheck %s --check-prefix=SHIFTFIX --input-file=%t.shift.cu
// RUN: %nvcc -arch=sm_90 -ptx %t.shift.cu -o %t.shift.ptx
// RUN: not forge-port propose %s --kernel step_first --block 256 --rules=warp-shuffle-reduction 2>&1 | FileCheck %s --check-prefix=FIRST
// RUN: not forge-port propose %s --kernel moved_tid --block 256 --rules=warp-shuffle-reduction 2>&1 | FileCheck %s --check-prefix=MOVED
// RUN: not forge-port propose %s --kernel other_slot --block 256 --rules=warp-shuffle-reduction 2>&1 | FileCheck %s --check-prefix=SLOT

#define THREADS 256
__global__ void book_dot(const float *a, const float *b, float *c, int n) {
  __shared__ float cache[THREADS];
  int tid = threadIdx.x + blockIdx.x * blockDim.x;
  int cacheIndex = threadIdx.x;
  float temp = 0;
  while (tid < n) {
    temp += a[tid] * b[tid];
    tid += blockDim.x * gridDim.x;
  }
  cache[cacheIndex] = temp;
  __syncthreads();
  int i = blockDim.x / 2;
  while (i != 0) {
    if (cacheIndex < i)
      cache[cacheIndex] += cache[cacheIndex + i];
    __syncthreads();
    i /= 2;
  }
  if (cacheIndex == 0)
    atomicAdd(c, cache[0]);
}
// BOOK0: while (i > 32) {
// BOOK0: if (cacheIndex < 32) {
// BOOK0-NEXT: // warp-shuffle-reduction: steps s = 32 .. 1 in the first warp, in registers.
// BOOK0-NEXT: float val = cache[cacheIndex] + cache[cacheIndex + 32];
// BOOK0: if (cacheIndex == 0)
// BOOK0-NEXT: atomicAdd(c, val);
// The second rewrite replaces the stride's declaration with the tree.
// BOOK1: cache[cacheIndex] = temp;
// BOOK1-NOT: {{^}}  int i = blockDim.x / 2;
// BOOK1: float val = temp;
// BOOK1: if ((cacheIndex & 31) == 0)
// BOOK1-NEXT: cache[cacheIndex / 32] = val;
// PTX: bar.sync
// PTX-COUNT-5: shfl.sync.down.b32

// The stride starts at a constant: the tree covers twice it, whatever the block.
__global__ void const_start(const int *in, int *out) {
  __shared__ int s_part[256];
  unsigned t = threadIdx.x;
  s_part[t] = in[blockIdx.x * 256 + t];
  __syncthreads();
  for (unsigned s = 128; s; s >>= 1) {
    if (t < s)
      s_part[t] = max(s_part[t], s_part[t + s]);
    __syncthreads();
  }
  if (t == 0)
    out[blockIdx.x] = s_part[0];
}
// CONST: applied expert:warp-shuffle-reduction: the last 6 steps of the tree reduction over 's_part' as warp shuffles
// CONSTFIX: for (unsigned s = 128; s > 32; s >>= 1) {
// CONSTFIX: static_assert((256) >= 64
// CONSTFIX: int val = max(s_part[t], s_part[t + 32]);

// blockDim.x >> 1, and `while (s > 0)` with the halving at the end.
__global__ void shift_start(const double *in, double *out) {
  extern __shared__ double acc[];
  int lane = threadIdx.x;
  acc[lane] = in[blockIdx.x * blockDim.x + lane];
  __syncthreads();
  int s = blockDim.x >> 1;
  while (s > 0) {
    if (lane < s)
      acc[lane] = acc[lane] + acc[lane + s];
    __syncthreads();
    s >>= 1;
  }
  if (lane == 0)
    out[blockIdx.x] = acc[0];
}
// SHIFT: applied expert:warp-shuffle-reduction: the last 6 steps of the tree reduction over 'acc' as warp shuffles
// SHIFTFIX: while (s > 32) {
// SHIFTFIX: double val = acc[lane] + acc[lane + 32];

// The stride halves before the step: the tree's first step is over s / 2.
__global__ void step_first(const float *in, float *out) {
  __shared__ float sd[256];
  sd[threadIdx.x] = in[blockIdx.x * 256 + threadIdx.x];
  __syncthreads();
  int s = blockDim.x;
  while (s > 1) {
    s /= 2;
    if (threadIdx.x < s)
      sd[threadIdx.x] += sd[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    out[blockIdx.x] = sd[0];
}
// FIRST: warp-shuffle-reduction: not applicable: no shared-memory tree reduction

// The thread's slot is assigned later: its name does not keep threadIdx.x.
__global__ void moved_tid(const float *in, float *out) {
  __shared__ float sd[256];
  int t = threadIdx.x;
  sd[t] = in[blockIdx.x * 256 + t];
  __syncthreads();
  for (int s = 128; s > 0; s >>= 1) {
    if (t < s)
      sd[t] += sd[t + s];
    __syncthreads();
  }
  if (t == 0)
    out[blockIdx.x] = sd[0];
  t = 0;
}
// MOVED: warp-shuffle-reduction: not applicable: no shared-memory tree reduction {{.*}}; the loop at line {{[0-9]+}} is not one: 't' is assigned in the kernel

// Each thread owns the slot at 2 * threadIdx.x: not the tree the rewrite
// finishes in one warp.
__global__ void other_slot(const float *in, float *out) {
  __shared__ float sd[512];
  int t = 2 * threadIdx.x;
  sd[t] = in[blockIdx.x * 512 + t];
  __syncthreads();
  for (int s = 128; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      sd[t] += sd[t + s];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    out[blockIdx.x] = sd[0];
}
// SLOT: warp-shuffle-reduction: not applicable: no shared-memory tree reduction
