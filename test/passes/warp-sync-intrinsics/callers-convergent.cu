// A __device__ helper gets the full mask only when every lane reaches it in
// every calling context: here two kernels call it with no branch around the
// call, and a third under 'threadIdx.x < 32', which splits its blocks at
// whole warps because its only launch is one-dimensional.
// RUN: forge-port port --checks=warp-sync-intrinsics --to sm_90 --no-validate %s -o %t.cu -- %cuda_mock_flags \
// RUN:   > %t.log 2>&1
// RUN: FileCheck %s --check-prefix=DIAG --input-file=%t.log --implicit-check-not='warning:' --implicit-check-not='note:'
// RUN: FileCheck %s --check-prefix=FIX --match-full-lines --input-file=%t.cu
// RUN: %clang_cuda_mock -fsyntax-only %t.cu

__device__ float warpSum(float v) {
  for (int offset = 16; offset > 0; offset /= 2)
    v += __shfl_down(v, offset);
  // DIAG: [[@LINE-1]]:10: warning: '__shfl_down' was removed in CUDA 13; use '__shfl_down_sync' [warp-sync-intrinsics]
  // FIX: v += __shfl_down_sync(0xffffffff, v, offset);
  return v;
}

__global__ void sum(const float *in, float *out) {
  float s = warpSum(in[threadIdx.x]);
  if (threadIdx.x == 0)
    *out = s;
}

__global__ void scale(float *x, int mode) {
  // A kernel parameter is the same in every thread.
  if (mode == 1)
    x[threadIdx.x] *= warpSum(x[threadIdx.x]);
}

__global__ void firstWarp(float *x) {
  if (threadIdx.x < 32)
    x[threadIdx.x] = warpSum(x[threadIdx.x]);
}

void run(float *x) { firstWarp<<<1, 256>>>(x); }
// DIAG: 0 error(s), 1 warning(s) for sm_90; 1 fixed
