// A helper called by a helper: the calling contexts are followed through
// 'outer' to the kernel, where 'outer' is called under a divergent branch;
// the note names the path and the divergent call.
// RUN: forge-port port --checks=warp-sync-intrinsics --to sm_90 --no-validate %s -o %t.cu -- %cuda_mock_flags \
// RUN:   > %t.log 2>&1 || true
// RUN: FileCheck %s --check-prefix=DIAG --input-file=%t.log --implicit-check-not='warning:'
// RUN: FileCheck %s --check-prefix=FIX --match-full-lines --input-file=%t.cu

__device__ float inner(float v) { return v + __shfl_up(v, 1); }
// DIAG: [[@LINE-1]]:46: warning: '__shfl_up' was removed in CUDA 13; use '__shfl_up_sync' [warp-sync-intrinsics]
// FIX: __device__ float inner(float v) { return v + __shfl_up(v, 1); }

__device__ float outer(float v) { return inner(v) * 2.0f; }

__global__ void evens(float *x) {
  float v = x[threadIdx.x];
  if (threadIdx.x % 2 == 0)
    v = outer(v);
  // DIAG: [[@LINE-1]]:9: note: not rewritten: 'inner' is reached through 'outer' (line 13); 'outer' is called at line [[#@LINE-1]] under 'threadIdx.x % 2 == 0', which not every lane of a warp satisfies; choose the lane mask by hand
  x[threadIdx.x] = v;
}

// Both levels convergent: rewritten.
__device__ int lane0(int v) { return __shfl(v, 0); }
// DIAG: [[@LINE-1]]:38: warning: '__shfl' was removed{{.*}}[warp-sync-intrinsics]
// FIX: __device__ int lane0(int v) { return __shfl_sync(0xffffffff, v, 0); }
__device__ int viaHelper(int v) { return lane0(v) + 1; }
__global__ void all(int *x) { x[threadIdx.x] = viaHelper(x[threadIdx.x]); }
// DIAG: 2 warning(s) for sm_90; 1 fixed
