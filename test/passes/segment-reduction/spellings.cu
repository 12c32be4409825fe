// REQUIRES: cuda
// Other spellings of a block reduction with one output per block: a maximum
// of absolute values with fmaxf over a static array and a constant block
// (#define), a maximum written as a select with -INFINITY from the guard's
// else branch, a sum of squares of doubles (interleaved, `s <<= 1`), and a
// minimum of ints with two elements per thread. Applied one after the
// other into one file that nvcc compiles once.
// RUN: forge-port propose %s --kernel maxabs --rules=segment-reduction --apply -o %t.0.cu 2>&1 | FileCheck %s --check-prefix=NOTE
// RUN: forge-port propose %t.0.cu --kernel block_max --block 512 --rules=segment-reduction --apply -o %t.1.cu
// RUN: forge-port propose %t.1.cu --kernel sumsq --block 256 --rules=segment-reduction --apply -o %t.2.cu
// RUN: forge-port propose %t.2.cu --kernel count_min --block 128 --rules=segment-reduction --apply -o %t.3.cu
// RUN: FileCheck %s --input-file=%t.3.cu
// RUN: %nvcc -arch=sm_90 -c %t.3.cu -o /dev/null
// NOTE: forge-port: note: applied expert:segment-reduction: each warp reduces one block's segment of 256 elements of the tree over 'smax' (grid 8x smaller)
#include <math.h>
#define BS 256

__global__ void maxabs(const float *in, float *out, int n) {
  __shared__ float smax[BS];
  int t = threadIdx.x;
  int gi = blockIdx.x * BS + t;
  smax[t] = gi < n ? fabsf(in[gi]) : 0.0f;
  __syncthreads();
  for (int s = BS / 2; s > 0; s >>= 1) {
    if (t < s)
      smax[t] = fmaxf(smax[t], smax[t + s]);
    __syncthreads();
  }
  if (t == 0)
    out[blockIdx.x] = smax[0];
}

__global__ void block_max(const float *in, float *out, unsigned n) {
  extern __shared__ float sm[];
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  sm[threadIdx.x] = (i < n) ? in[i] : -INFINITY;
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      sm[threadIdx.x] = sm[threadIdx.x + s] > sm[threadIdx.x] ? sm[threadIdx.x + s] : sm[threadIdx.x];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    out[blockIdx.x] = sm[0];
}

__global__ void sumsq(const double *x, double *partial, long n) {
  __shared__ double cache[512];
  unsigned tid = threadIdx.x;
  long i = (long)blockIdx.x * blockDim.x + tid;
  double v = 0.0;
  if (i < n)
    v = x[i] * x[i];
  cache[tid] = v;
  __syncthreads();
  for (unsigned s = 1; s < blockDim.x; s <<= 1) {
    if ((tid % (2 * s)) == 0)
      cache[tid] = cache[tid] + cache[tid + s];
    __syncthreads();
  }
  if (tid == 0)
    partial[blockIdx.x] = cache[0];
}

__global__ void count_min(const int *keys, int *mins, int n) {
  extern __shared__ int sk[];
  int tid = threadIdx.x;
  int i = blockIdx.x * (blockDim.x * 2) + tid;
  int a = i < n ? keys[i] : 2147483647;
  int b = i + (int)blockDim.x < n ? keys[i + blockDim.x] : 2147483647;
  sk[tid] = min(a, b);
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s /= 2) {
    if (tid < s)
      sk[tid] = min(sk[tid], sk[tid + s]);
    __syncthreads();
  }
  if (tid == 0)
    mins[blockIdx.x] = sk[0];
}
// CHECK-LABEL: __global__ void maxabs(
// CHECK:   const long long segments = seg_limit > 0 ? (seg_limit + (long long)256 - 1) / (long long)256 : 0;
// CHECK-NEXT:   if (blockDim.x % 32 != 0 || (blockDim.x & (blockDim.x - 1)) != 0 || blockDim.y != 1 || blockDim.z != 1 || blockDim.x != 256) {
// CHECK:     int gi = seg * BS + t;
// CHECK-NEXT:     v = gi < n ? fabsf(in[gi]) : 0.0f;
// CHECK:   const unsigned int per_lane = 256 / 32;
// CHECK:         acc = fmaxf(acc, vals[u]);
// CHECK:     acc = fmaxf(acc, __shfl_down_sync(0xffffffffu, acc, offset));
// CHECK-NEXT:   if (lane == 0)
// CHECK-NEXT:     out[seg] = acc;
// CHECK-LABEL: __global__ void block_max(
// CHECK:     v = (i < n) ? in[i] : -INFINITY;
// CHECK:         acc = (vals[u] > acc ? vals[u] : acc);
// CHECK:     const float other = __shfl_down_sync(0xffffffffu, acc, offset);
// CHECK-NEXT:     acc = (other > acc ? other : acc);
// CHECK-LABEL: __global__ void sumsq(
// CHECK:   auto thread_value = [&](unsigned int vt) -> double {
// CHECK-NEXT:     double v2;
// CHECK-NEXT:     unsigned tid = vt;
// CHECK-NEXT:     long i = (long)seg * blockDim.x + tid;
// CHECK-NEXT:     double v = 0.0;
// CHECK:     v2 = v;
// CHECK:         acc += vals[u];
// CHECK:     partial[seg] = acc;
// CHECK-LABEL: __global__ void count_min(
// CHECK:   auto thread_value = [&](unsigned int vt) -> int {
// CHECK:         acc = min(acc, vals[u]);
// CHECK:     mins[seg] = acc;
