// REQUIRES: cuda
// Mark Harris' "Optimizing Parallel Reduction" kernels reduce0 .. reduce3:
// one partial per block into out[blockIdx.x]. Each is rewritten so that a
// warp reduces one block's segment (the rewrites are applied one after the
// other into one file, which nvcc compiles once); reduce4's unrolled
// volatile last warp is declined with the reason.
// RUN: forge-port propose %s --kernel reduce0 --block 256 --rules=segment-reduction --apply -o %t.0.cu 2>&1 | FileCheck %s --check-prefix=NOTE0
// RUN: forge-port propose %t.0.cu --kernel reduce1 --block 256 --rules=segment-reduction --apply -o %t.1.cu
// RUN: forge-port propose %t.1.cu --kernel reduce2 --block 256 --rules=segment-reduction --apply -o %t.2.cu
// RUN: forge-port propose %t.2.cu --kernel reduce3 --block 256 --rules=segment-reduction --apply -o %t.3.cu
// RUN: FileCheck %s --input-file=%t.3.cu
// RUN: %nvcc -arch=sm_90 -c %t.3.cu -o /dev/null
// RUN: not forge-port propose %s --kernel reduce4 --block 256 --rules=segment-reduction 2>&1 | FileCheck %s --check-prefix=R4
// RUN: forge-port propose %s --kernel reduce3 --spec %S/Inputs/reduce3.json --rules=segment-reduction 2>&1 | FileCheck %s --check-prefix=SPEC
// NOTE0: forge-port: note: applied expert:segment-reduction: each warp reduces one block's segment of blockDim.x elements of the tree over 'sdata' (grid 8x smaller)
// R4: segment-reduction: not applicable: the tree at line {{[0-9]+}} stops at s = 64 and leaves the last warp to code after the loop (reduce4 / reduce5's unrolled volatile warp), which the kernel model does not recognise as part of the tree
// SPEC: # expert:segment-reduction: each warp reduces one block's segment of 2 * blockDim.x elements of the tree over 'sdata' (grid 8x smaller)
// SPEC: # A block tree reduction (sequential addressing) over 'sdata' at line {{[0-9]+}}: each block reduces 2 * blockDim.x contiguous elements (2 per thread){{.*}}(8 per lane with blocks of 256, 16 loads{{.*}}The floating-point operations are re-associated{{.*}}which the spec's tolerance judges
// SPEC-NEXT: # spec: grid.x -> ceil_div(ceil_div(N, 2 * BLOCK), (BLOCK) / 32)
// SPEC-NEXT: # spec: new constraint (BLOCK) % 32 == 0
// SPEC-NEXT: # spec: why: each warp of the rewritten kernel reduces the segment of one block of the original launch

// reduce0: interleaved addressing, `tid % (2 * s) == 0`.
__global__ void reduce0(const float *g_idata, float *g_odata, unsigned int n) {
  extern __shared__ float sdata[];
  unsigned int tid = threadIdx.x;
  unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
  sdata[tid] = (i < n) ? g_idata[i] : 0;
  __syncthreads();
  for (unsigned int s = 1; s < blockDim.x; s *= 2) {
    if (tid % (2 * s) == 0)
      sdata[tid] += sdata[tid + s];
    __syncthreads();
  }
  if (tid == 0)
    g_odata[blockIdx.x] = sdata[0];
}
// CHECK-LABEL: __global__ void reduce0(
// CHECK:   const long long seg_limit = (long long)n;
// CHECK-NEXT:   const long long segments = seg_limit > 0 ? (seg_limit + (long long)blockDim.x - 1) / (long long)blockDim.x : 0;
// CHECK-NEXT:   if (blockDim.x % 32 != 0 || (blockDim.x & (blockDim.x - 1)) != 0 || blockDim.y != 1 || blockDim.z != 1) {
// CHECK:       const unsigned int vb = blockIdx.x * per_block + j;
// CHECK:           g_odata[vb] = sdata[0];
// CHECK:   const unsigned int seg = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
// CHECK:   auto thread_value = [&](unsigned int vt) -> float {
// CHECK-NEXT:     float v;
// CHECK-NEXT:     unsigned int tid = vt;
// CHECK-NEXT:     unsigned int i = seg * blockDim.x + vt;
// CHECK-NEXT:     v = (i < n) ? g_idata[i] : 0;
// CHECK-NEXT:     return v;
// CHECK-NEXT:   };
// CHECK-NEXT:   const unsigned int per_lane = blockDim.x / 32;
// CHECK-NEXT:   float acc = thread_value(lane);
// CHECK:         vals[u] = thread_value(lane + 32 * (k0 + u));
// CHECK:         acc += vals[u];
// CHECK:     acc += __shfl_down_sync(0xffffffffu, acc, offset);
// CHECK-NEXT:   if (lane == 0)
// CHECK-NEXT:     g_odata[seg] = acc;
// CHECK-NEXT: }

// reduce1: interleaved addressing through a strided index.
__global__ void reduce1(const float *g_idata, float *g_odata, unsigned int n) {
  extern __shared__ float sdata[];
  unsigned int tid = threadIdx.x;
  unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
  sdata[tid] = (i < n) ? g_idata[i] : 0;
  __syncthreads();
  for (unsigned int s = 1; s < blockDim.x; s *= 2) {
    int index = 2 * s * tid;
    if (index < blockDim.x)
      sdata[index] += sdata[index + s];
    __syncthreads();
  }
  if (tid == 0)
    g_odata[blockIdx.x] = sdata[0];
}
// CHECK-LABEL: __global__ void reduce1(
// CHECK:     v = (i < n) ? g_idata[i] : 0;
// CHECK:     g_odata[seg] = acc;

// reduce2: sequential addressing, a static array.
__global__ void reduce2(const float *g_idata, float *g_odata, unsigned int n) {
  __shared__ float sdata[256];
  unsigned int tid = threadIdx.x;
  unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
  sdata[tid] = (i < n) ? g_idata[i] : 0;
  __syncthreads();
  for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s)
      sdata[tid] += sdata[tid + s];
    __syncthreads();
  }
  if (tid == 0)
    g_odata[blockIdx.x] = sdata[0];
}
// CHECK-LABEL: __global__ void reduce2(
// CHECK:         __shared__ float sdata[256];
// CHECK:     g_odata[seg] = acc;

// reduce3: the first add during the load, two elements per thread.
__global__ void reduce3(const float *g_idata, float *g_odata, unsigned int n) {
  extern __shared__ float sdata[];
  unsigned int tid = threadIdx.x;
  unsigned int i = blockIdx.x * (blockDim.x * 2) + threadIdx.x;
  sdata[tid] = (i < n) ? g_idata[i] : 0;
  if (i + blockDim.x < n)
    sdata[tid] += g_idata[i + blockDim.x];
  __syncthreads();
  for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s)
      sdata[tid] += sdata[tid + s];
    __syncthreads();
  }
  if (tid == 0)
    g_odata[blockIdx.x] = sdata[0];
}
// CHECK-LABEL: __global__ void reduce3(
// CHECK:   const long long segments = seg_limit > 0 ? (seg_limit + (long long)(2 * blockDim.x) - 1) / (long long)(2 * blockDim.x) : 0;
// CHECK:     unsigned int i = seg * (blockDim.x * 2) + vt;
// CHECK-NEXT:     v = (i < n) ? g_idata[i] : 0;
// CHECK-NEXT:     if (i + blockDim.x < n)
// CHECK-NEXT:       v += g_idata[i + blockDim.x];
// CHECK-NEXT:     return v;

// reduce4: the tree stops at s = 64; an unrolled volatile warp finishes it.
__device__ void warpReduce(volatile float *sdata, unsigned int tid) {
  sdata[tid] += sdata[tid + 32];
  sdata[tid] += sdata[tid + 16];
  sdata[tid] += sdata[tid + 8];
  sdata[tid] += sdata[tid + 4];
  sdata[tid] += sdata[tid + 2];
  sdata[tid] += sdata[tid + 1];
}
__global__ void reduce4(const float *g_idata, float *g_odata, unsigned int n) {
  extern __shared__ float sdata[];
  unsigned int tid = threadIdx.x;
  unsigned int i = blockIdx.x * (blockDim.x * 2) + threadIdx.x;
  float mySum = (i < n) ? g_idata[i] : 0;
  if (i + blockDim.x < n)
    mySum += g_idata[i + blockDim.x];
  sdata[tid] = mySum;
  __syncthreads();
  for (unsigned int s = blockDim.x / 2; s > 32; s >>= 1) {
    if (tid < s)
      sdata[tid] += sdata[tid + s];
    __syncthreads();
  }
  if (tid < 32)
    warpReduce(sdata, tid);
  if (tid == 0)
    g_odata[blockIdx.x] = sdata[0];
}
