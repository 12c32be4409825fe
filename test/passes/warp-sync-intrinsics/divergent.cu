// Under divergent control flow a full mask would be wrong (the lanes that
// do not reach the call would be waited for): warn and explain, no rewrite.
// RUN: forge-port port --checks=warp-sync-intrinsics --to sm_90 --no-validate %s -o %t.cu -- %cuda_mock_flags \
// RUN:   > %t.log 2>&1 || true
// RUN: FileCheck %s --check-prefix=DIAG --input-file=%t.log --implicit-check-not='warning:'
// RUN: FileCheck %s --check-prefix=FIX --match-full-lines --input-file=%t.cu

__device__ int halfWarp(int v, int lane) {
  if (lane < 16)
    v += __shfl_down(v, 8);
  // DIAG: [[@LINE-1]]:10: warning: '__shfl_down' was removed{{.*}}[warp-sync-intrinsics]
  // DIAG: [[@LINE-3]]:3: note: not rewritten: the call is under divergent control flow; choose the lane mask by hand
  // FIX: v += __shfl_down(v, 8);
  return v;
}

__global__ void tail(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  float v = __shfl_xor(in[i], 1);
  // DIAG: [[@LINE-1]]:13: warning: '__shfl_xor' was removed{{.*}}[warp-sync-intrinsics]
  // DIAG: note: not rewritten: some lanes may have returned before the call; choose the lane mask by hand
  // FIX: float v = __shfl_xor(in[i], 1);
  out[i] = v;
}

__global__ void loopPerThread(float *x) {
  for (int k = 0; k < threadIdx.x; ++k)
    x[k] = __shfl_up(x[k], 1);
  // DIAG: [[@LINE-1]]:12: warning: '__shfl_up' was removed{{.*}}[warp-sync-intrinsics]
  // DIAG: note: not rewritten: the call is in a loop whose trip count may differ between threads; choose the lane mask by hand
  // FIX: x[k] = __shfl_up(x[k], 1);
}

__global__ void uniformBranch(float *x, int mode) {
  // A kernel parameter is the same in every thread: this one is rewritten.
  if (mode == 1)
    x[threadIdx.x] = __shfl(x[threadIdx.x], 0);
  // DIAG: [[@LINE-1]]:22: warning: '__shfl' was removed{{.*}}[warp-sync-intrinsics]
  // FIX: x[threadIdx.x] = __shfl_sync(0xffffffff, x[threadIdx.x], 0);
}
