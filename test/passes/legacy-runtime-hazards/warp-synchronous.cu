// Warp-synchronous shared-memory code written for lockstep warps: since
// Volta the lanes of a warp may run apart, so a step that reads what other
// lanes wrote in the step before needs a __syncwarp() between the two.
// REQUIRES: cuda
// RUN: forge-port port --checks=legacy-runtime-hazards --to sm_90 --no-validate %s -o %t.cu 2>&1 | FileCheck %s --check-prefix=DIAG --implicit-check-not='{{^[^ ]+: (warning|error):}}'
// RUN: FileCheck %s --check-prefix=FIX --match-full-lines --input-file=%t.cu
// RUN: %nvcc -arch=sm_90 -c %t.cu -o %t.o

// The SDK's reduction of the CUDA 2-8 era: the last warp unrolled through a
// volatile pointer, under 'tid < 32'. Rewritten.
__global__ void reduce(const float *in, float *out, int n) {
  __shared__ float sdata[256];
  unsigned tid = threadIdx.x;
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  sdata[tid] = i < n ? in[i] : 0.0f;
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 32; s >>= 1) {
    if (tid < s)
      sdata[tid] += sdata[tid + s];
    __syncthreads();
  }
  if (tid < 32) {
    volatile float *smem = sdata;
    smem[tid] += smem[tid + 32];
    // DIAG: [[@LINE-1]]:5: warning: warp-synchronous shared-memory reduction: the steps at lines [[@LINE-1]]-[[@LINE+8]] read 'smem' where other lanes wrote in the step before, with no __syncwarp() between them; the lanes of a warp no longer run in lockstep (independent thread scheduling since Volta), so this races [legacy-runtime-hazards]
    // FIX: {{^}}    { auto forge_warp_v = smem[tid] + (smem[tid + 32]); __syncwarp(); smem[tid] = forge_warp_v; __syncwarp(); }
    smem[tid] += smem[tid + 16];
    // FIX: {{^}}    { auto forge_warp_v = smem[tid] + (smem[tid + 16]); __syncwarp(); smem[tid] = forge_warp_v; __syncwarp(); }
    smem[tid] += smem[tid + 8];
    smem[tid] += smem[tid + 4];
    smem[tid] += smem[tid + 2];
    // The max-spelling of a step is one too.
    smem[tid] = fmaxf(smem[tid], smem[tid + 1]);
    // FIX: {{^}}    { auto forge_warp_v = fmaxf(smem[tid], smem[tid + 1]); __syncwarp(); smem[tid] = forge_warp_v; __syncwarp(); }
  }
  if (tid == 0)
    out[blockIdx.x] = sdata[0];
}

// The SDK's templated spelling: each step under 'if (blockSize >= N)'.
template <unsigned blockSize> __global__ void reduceT(const int *in, int *out) {
  __shared__ int sdata[blockSize];
  unsigned tid = threadIdx.x;
  int mySum = in[blockIdx.x * blockSize + tid];
  sdata[tid] = mySum;
  __syncthreads();
  if (tid < 32) {
    volatile int *smem = sdata;
    if (blockSize >= 64) smem[tid] = mySum = mySum + smem[tid + 32];
    // DIAG: [[@LINE-1]]:26: warning: warp-synchronous shared-memory reduction: the steps at lines [[@LINE-1]]-[[@LINE+3]] read 'smem'
    // FIX: {{^}}    if (blockSize >= 64) { auto forge_warp_v = mySum = mySum + smem[tid + 32]; __syncwarp(); smem[tid] = forge_warp_v; __syncwarp(); }
    if (blockSize >= 32) smem[tid] = mySum = mySum + smem[tid + 16];
    if (blockSize >= 16) smem[tid] = mySum = mySum + smem[tid + 8];
  }
  if (tid == 0)
    out[blockIdx.x] = sdata[0];
}
template __global__ void reduceT<256>(const int *, int *);

// A helper nothing in the file calls: whether all 32 lanes run it is not
// known. Flagged, not rewritten.
__device__ void warpReduce(volatile int *s, int tid) {
  s[tid] += s[tid + 32];
  // DIAG: [[@LINE-1]]:3: warning: warp-synchronous shared-memory reduction: the steps at lines [[@LINE-1]]-[[@LINE+3]] read 's'
  // DIAG: [[@LINE-2]]:3: note: not rewritten: it is not known that all 32 lanes of a warp run the steps (no call of 'warpReduce' was seen in this file
  s[tid] += s[tid + 16];
  s[tid] += s[tid + 8];
}

// The loop spelling: successive iterations are the steps. Rewritten.
__global__ void reduceLoop(int *data) {
  __shared__ int sdata[64];
  sdata[threadIdx.x] = data[threadIdx.x];
  __syncthreads();
  if (threadIdx.x < 32) {
    for (int o = 32; o > 0; o >>= 1)
      sdata[threadIdx.x] += sdata[threadIdx.x + o];
    // DIAG: [[@LINE-1]]:7: warning: warp-synchronous shared-memory reduction: each iteration reads 'sdata' where other lanes wrote in the iteration before
    // FIX: {{^}}      { auto forge_warp_v = sdata[threadIdx.x] + (sdata[threadIdx.x + o]); __syncwarp(); sdata[threadIdx.x] = forge_warp_v; __syncwarp(); }
  }
  if (threadIdx.x == 0)
    data[0] = sdata[0];
}

// Already synchronised: nothing to say.
__global__ void synced(int *data) {
  __shared__ int sdata[64];
  unsigned t = threadIdx.x;
  sdata[t] = data[t];
  __syncthreads();
  if (t < 32) {
    int v = sdata[t] + sdata[t + 32];
    __syncwarp();
    sdata[t] = v;
    __syncwarp();
    for (int o = 16; o > 0; o >>= 1) {
      v += sdata[t + o];
      __syncwarp();
      sdata[t] = v;
      __syncwarp();
    }
  }
  data[0] = sdata[0];
}

// The tagged histogram of the SDK's CUDA 1.x histogram256: a retry loop
// until this lane's write is the one read back.
__device__ void addByte(volatile unsigned *s_WarpHist, unsigned data, unsigned threadTag) {
  unsigned count;
  do {
    // DIAG: [[@LINE-1]]:3: warning: tagged shared-memory update: the loop stores to 's_WarpHist' until its own write is the one read back, which relies on the lanes of a warp running in lockstep (ended by independent thread scheduling since Volta); count with atomicAdd on shared memory [legacy-runtime-hazards]
    // DIAG: [[@LINE-2]]:3: note: not rewritten: the tag bits and the count's width are the program's own; replace the loop by hand
    count = s_WarpHist[data] & 0x07FFFFFFU;
    count = threadTag | (count + 1);
    s_WarpHist[data] = count;
  } while (s_WarpHist[data] != count);
}

// One thread walking the array: its loop counter is no lane, so this is not
// a warp's step. Not flagged.
__global__ void prefixByOne(int *data, int n) {
  __shared__ int s[128];
  s[threadIdx.x] = data[threadIdx.x];
  __syncthreads();
  if (threadIdx.x == 0)
    for (int k = 0; k + 1 < n && k < 127; ++k)
      s[k + 1] += s[k + 1 + 0] + s[k];
  if (threadIdx.x == 0)
    for (int k = 0; k < 126; ++k)
      s[k] += s[k + 1];
  __syncthreads();
  data[threadIdx.x] = s[threadIdx.x];
}

// A helper every call of which runs on whole warps (under threadIdx.x < 32
// in a kernel launched with 256-thread blocks): rewritten in the helper.
__device__ void warpSum(volatile float *s, unsigned t) {
  s[t] += s[t + 32];
  // DIAG: [[@LINE-1]]:3: warning: warp-synchronous shared-memory reduction: the steps at lines [[@LINE-1]]-[[@LINE+3]] read 's'
  // FIX: {{^}}  { auto forge_warp_v = s[t] + (s[t + 32]); __syncwarp(); s[t] = forge_warp_v; __syncwarp(); }
  s[t] += s[t + 16];
  s[t] += s[t + 8];
}

__global__ void sums(const float *in, float *out) {
  __shared__ float sdata[256];
  sdata[threadIdx.x] = in[blockIdx.x * 256 + threadIdx.x];
  __syncthreads();
  if (threadIdx.x < 32)
    warpSum(sdata, threadIdx.x);
  if (threadIdx.x == 0)
    out[blockIdx.x] = sdata[0];
}

void launchSums(const float *in, float *out, int blocks) { sums<<<blocks, 256>>>(in, out); }

// The same helper shape called under 'lane < 8': not every lane of the warp
// runs it. Flagged, not rewritten; the note says where.
__device__ void partSum(volatile float *s, unsigned t) {
  s[t] += s[t + 4];
  // DIAG: [[@LINE-1]]:3: warning: warp-synchronous shared-memory reduction: the steps at lines [[@LINE-1]]-[[@LINE+3]] read 's'
  // DIAG: [[@LINE-2]]:3: note: not rewritten: it is not known that all 32 lanes of a warp run the steps ('partSum' is called at line [[@LINE+10]] under 'threadIdx.x % 32 < 8', which not every lane of a warp satisfies); where they do
  s[t] += s[t + 2];
  s[t] += s[t + 1];
}

__global__ void parts(float *out) {
  __shared__ float sdata[256];
  sdata[threadIdx.x] = out[threadIdx.x];
  __syncthreads();
  if (threadIdx.x % 32 < 8)
    partSum(sdata, threadIdx.x);
  out[threadIdx.x] = sdata[threadIdx.x];
}

// cuda-samples' scalarProd: block barriers through cooperative groups,
// and a loop whose counter picks the element it writes below its bound
// and reads the bound away ('for (i = tid; i < stride; i += blockDim.x)
// acc[i] += acc[stride + i]'): it writes [0, stride) and reads [stride, 2
// stride), so no lane reads what another writes. Not flagged (it was, before
// 2026-12-05 night: the one warning of the cuda-samples tree).
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
__global__ void cgTree(float *out) {
  cg::thread_block cta = cg::this_thread_block();
  __shared__ float acc[1024];
  acc[threadIdx.x] = threadIdx.x;
  for (int stride = 512; stride > 0; stride >>= 1) {
    cg::sync(cta);
    for (int i = threadIdx.x; i < stride; i += blockDim.x)
      acc[i] += acc[stride + i];
  }
  for (int stride = 16; stride > 0; stride >>= 1) {
    cta.sync();
    if (threadIdx.x < stride)
      acc[threadIdx.x] += acc[threadIdx.x + stride];
  }
  cg::sync(cta);
  if (threadIdx.x == 0)
    *out = acc[0];
}

// A counter-picked element that reads its neighbour (not the loop's bound
// away): the lanes read what others write. Rewritten.
__global__ void shiftAdd(float *out) {
  __shared__ float s[64];
  s[threadIdx.x] = threadIdx.x;
  __syncthreads();
  if (threadIdx.x < 32) {
    for (int i = threadIdx.x; i < 32; i += 32)
      s[i] += s[i + 1];
    // DIAG: [[@LINE-1]]:7: warning: warp-synchronous shared-memory reduction: each iteration reads 's' where other lanes wrote in the iteration before
    // FIX: {{^}}      { auto forge_warp_v = s[i] + (s[i + 1]); __syncwarp(); s[i] = forge_warp_v; __syncwarp(); }
  }
  __syncthreads();
  out[threadIdx.x] = s[threadIdx.x];
}
