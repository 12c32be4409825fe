// REQUIRES: cuda
// Interleaved-addressing trees (the stride doubles from 1; the threads at
// multiples of 2 * s combine): rewritten whole, warp first; what differs
// is declined with the reason.
// RUN: forge-port propose %s --kernel modulo --block 256 --rules=warp-shuffle-reduction 2>&1 | FileCheck %s --check-prefix=MOD
// RUN: forge-port propose %s --kernel modulo --block 256 --rules=warp-shuffle-reduction --apply -o %t.cu
// RUN: %nvcc -arch=sm_90 -c %t.cu -o %t.o
// RUN: forge-port propose %s --kernel masked --block 128 --rules=warp-shuffle-reduction 2>&1 | FileCheck %s --check-prefix=MASK
// RUN: not forge-port propose %s --kernel no_store --block 256 --rules=warp-shuffle-reduction 2>&1 | FileCheck %s --check-prefix=NOSTORE
// RUN: not forge-port propose %s --kernel wrong_guard --block 256 --rules=warp-shuffle-reduction 2>&1 | FileCheck %s --check-prefix=GUARD
// RUN: not forge-port propose %s --kernel reads_all --block 256 --rules=warp-shuffle-reduction 2>&1 | FileCheck %s --check-prefix=READS
// RUN: not forge-port propose %s --kernel modulo --block 96 --rules=warp-shuffle-reduction 2>&1 | FileCheck %s --check-prefix=POW2

__global__ void modulo(const float *in, float *out, unsigned n) {
  extern __shared__ float sdata[];
  unsigned tid = threadIdx.x;
  unsigned i = blockIdx.x * blockDim.x + tid;
  sdata[tid] = i < n ? in[i] : 0.0f;
  __syncthreads();
  for (unsigned s = 1; s < blockDim.x; s *= 2) {
    if (tid % (2 * s) == 0)
      sdata[tid] += sdata[tid + s];
    __syncthreads();
  }
  if (tid == 0)
    out[blockIdx.x] = sdata[0];
}
// MOD: # expert:warp-shuffle-reduction: reduce each warp with shuffles first; 'sdata' keeps one partial per warp
// MOD-NOT: the last 6 steps
// MOD: float val = i < n ? in[i] : 0.0f;
// MOD: val += __shfl_down_sync(0xffffffff, val, offset);
// MOD: if (tid == 0)
// MOD-NEXT: out[blockIdx.x] = val;

__global__ void masked(const int *in, int *out, int n) {
  __shared__ int sm[128];
  int t = threadIdx.x;
  sm[t] = blockIdx.x * 128 + t < n ? in[blockIdx.x * 128 + t] : 0;
  __syncthreads();
  for (int s = 1; s < 128; s <<= 1) {
    if (!(t & (s * 2 - 1)))
      sm[t] = sm[t] + sm[t + s];
    __syncthreads();
  }
  if (t == 0)
    out[blockIdx.x] = sm[0];
}
// MASK: # expert:warp-shuffle-reduction: reduce each warp with shuffles first; 'sm' keeps one partial per warp

// The tree's values are not stored right before it.
__global__ void no_store(const float *in, float *out, int n) {
  __shared__ float sdata[256];
  unsigned tid = threadIdx.x;
  sdata[tid] = 0;
  for (int i = blockIdx.x * 256 + tid; i < n; i += 256 * gridDim.x)
    sdata[tid] += in[i];
  __syncthreads();
  for (unsigned s = 1; s < 256; s *= 2) {
    if (tid % (2 * s) == 0)
      sdata[tid] += sdata[tid + s];
    __syncthreads();
  }
  if (tid == 0)
    out[blockIdx.x] = sdata[0];
}
// NOSTORE: not applicable: the interleaved tree over 'sdata' is rewritten whole, from the store before it

// Every thread at a multiple of s (not 2 * s) would add pairs twice.
__global__ void wrong_guard(const float *in, float *out, int n) {
  __shared__ float sdata[256];
  unsigned tid = threadIdx.x;
  sdata[tid] = in[blockIdx.x * 256 + tid];
  __syncthreads();
  for (unsigned s = 1; s < 256; s *= 2) {
    if (tid % s == 0)
      sdata[tid] += sdata[tid + s];
    __syncthreads();
  }
  if (tid == 0)
    out[blockIdx.x] = sdata[0];
}
// GUARD: not applicable: no shared-memory tree reduction {{.*}}; the loop at line {{[0-9]+}} is not one: interleaved addressing: the step is not guarded by 'tid % (2 * s) == 0' with tid = threadIdx.x

// Other partials are read after the tree: they differ between the orders.
__global__ void reads_all(const float *in, float *out, int n) {
  __shared__ float sdata[256];
  unsigned tid = threadIdx.x;
  sdata[tid] = in[blockIdx.x * 256 + tid];
  __syncthreads();
  for (unsigned s = 1; s < 256; s *= 2) {
    if (tid % (2 * s) == 0)
      sdata[tid] += sdata[tid + s];
    __syncthreads();
  }
  out[blockIdx.x * 256 + tid] = sdata[tid];
}
// READS: not applicable: 'sdata' is used after the reduction other than as 'sdata[0]'

// POW2: not applicable: the tree runs over 96 threads; the rule needs a power of two of at least 64
