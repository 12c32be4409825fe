// A helper with no call in the file (a library function, say): whether every
// lane reaches it is not known, so it gets no full mask, and the note says
// why. A helper reached through a function pointer is not known either.
// RUN: forge-port port --checks=warp-sync-intrinsics --to sm_90 --no-validate %s -o %t.cu -- %cuda_mock_flags \
// RUN:   > %t.log 2>&1 || true
// RUN: FileCheck %s --check-prefix=DIAG --input-file=%t.log --implicit-check-not='warning:'
// RUN: FileCheck %s --check-prefix=FIX --match-full-lines --input-file=%t.cu

__device__ float warpSum(float v) {
  for (int offset = 16; offset > 0; offset /= 2)
    v += __shfl_down(v, offset);
  // DIAG: [[@LINE-1]]:10: warning: '__shfl_down' was removed in CUDA 13; use '__shfl_down_sync' [warp-sync-intrinsics]
  // DIAG: [[@LINE-4]]:18: note: not rewritten: no call of 'warpSum' was seen in this file, so whether every lane of a warp reaches it is not known; choose the lane mask by hand
  // FIX: v += __shfl_down(v, offset);
  return v;
}

__device__ int anyPositive(int v) { return __any(v > 0); }
// DIAG: [[@LINE-1]]:44: warning: '__any' was removed in CUDA 13; use '__any_sync' [warp-sync-intrinsics]
// FIX: __device__ int anyPositive(int v) { return __any(v > 0); }
__device__ int (*vote)(int) = anyPositive;
// DIAG: [[@LINE-1]]:31: note: not rewritten: 'anyPositive' is used at line [[#@LINE-1]] other than in a direct call, so the lanes that reach it that way are not known; choose the lane mask by hand
// DIAG: 2 warning(s) for sm_90; 0 fixed
