// The same helper, also called under a condition that only some lanes of a
// warp satisfy (found in real code: 'tid < shmem_extent', 8 lanes): a full
// mask would be undefined behaviour there, so the call is not rewritten,
// and the note is at the divergent call, naming it and its condition.
// RUN: forge-port port --checks=warp-sync-intrinsics --to sm_90 --no-validate %s -o %t.cu -- %cuda_mock_flags \
// RUN:   > %t.log 2>&1 || true
// RUN: FileCheck %s --check-prefix=DIAG --input-file=%t.log --implicit-check-not='warning:'
// RUN: FileCheck %s --check-prefix=FIX --match-full-lines --input-file=%t.cu
// RUN: not forge-port %s --to sm_90 --no-validate --format=json -- %cuda_mock_flags 2>/dev/null \
// RUN:   | FileCheck %s --check-prefix=JSON

__device__ float warpSum(float v) {
  for (int offset = 16; offset > 0; offset /= 2)
    v += __shfl_down(v, offset);
  // DIAG: [[@LINE-1]]:10: warning: '__shfl_down' was removed in CUDA 13; use '__shfl_down_sync' [warp-sync-intrinsics]
  // FIX: v += __shfl_down(v, offset);
  return v;
}

__global__ void sum(const float *in, float *out) { *out = warpSum(in[threadIdx.x]); }

__global__ void partial(float *x, int shmem_extent) {
  int tid = threadIdx.x;
  float v = x[tid];
  if (tid < shmem_extent)
    v = warpSum(v);
  // DIAG: [[@LINE-1]]:9: note: not rewritten: 'warpSum' is called at line [[#@LINE-1]] under 'tid < shmem_extent', which not every lane of a warp satisfies; choose the lane mask by hand
  // DIAG: [[@LINE-2]]:9: note: no ballot fix: the lanes are chosen in a caller; a mask would have to be computed there and passed down
  x[tid] = v;
}

// A block split at 32 is split at whole warps only when each warp is one row
// of threadIdx.x: not so for 16 x 16 blocks.
__device__ float warpMax(float v) { return fmaxf(v, __shfl_xor(v, 1)); }
// DIAG: [[@LINE-1]]:53: warning: '__shfl_xor' was removed{{.*}}[warp-sync-intrinsics]
// FIX: __device__ float warpMax(float v) { return fmaxf(v, __shfl_xor(v, 1)); }
__global__ void tile(float *x) {
  if (threadIdx.x < 32)
    x[threadIdx.x] = warpMax(x[threadIdx.x]);
  // DIAG: [[@LINE-1]]:22: note: not rewritten: 'warpMax' is called at line [[#@LINE-1]] under 'threadIdx.x < 32', which splits the block at whole warps only when each warp is one row of threadIdx.x, and the kernel's launches in this file do not show that; choose the lane mask by hand
}
void run(float *x) { tile<<<1, dim3(16, 16)>>>(x); }

// JSON:      "message": "'__shfl_down' was removed in CUDA 13; use '__shfl_down_sync'",
// JSON:      "fixed": false
// JSON:      "message": "not rewritten: 'warpSum' is called at line 26 under 'tid < shmem_extent', which not every lane of a warp satisfies; choose the lane mask by hand",
// JSON:      "line": 26,
