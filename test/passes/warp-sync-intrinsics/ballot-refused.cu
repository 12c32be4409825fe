// Where the lanes at the call are not the ballot of one condition taken
// before an 'if' that every lane reaches, there is no fix, and the note says
// why: a condition with side effects (a ballot would evaluate it twice), an
// exit from the branch before the call, an 'if' under another divergent
// branch, an 'else if', a loop whose trip count varies, an early return.
// RUN: forge-port port --checks=warp-sync-intrinsics --to sm_90 --no-validate %s -o %t.cu -- %cuda_mock_flags \
// RUN:   > %t.log 2>&1 || true
// RUN: FileCheck %s --check-prefix=DIAG --input-file=%t.log --implicit-check-not='warning:'
// RUN: diff %s %t.cu

__global__ void sideEffect(int *x, int *counter) {
  int v = x[threadIdx.x];
  if (atomicAdd(counter, 1) < 8)
    v += __shfl_down(v, 4);
  // DIAG: [[@LINE-1]]:10: warning: '__shfl_down' was removed{{.*}}[warp-sync-intrinsics]
  // DIAG: [[@LINE-3]]:3: note: not rewritten: the call is under divergent control flow; choose the lane mask by hand
  // DIAG: [[@LINE-4]]:3: note: no ballot fix: the condition has side effects, and a ballot would evaluate it a second time
  x[threadIdx.x] = v;
}

__global__ void leaves(int *x, int n) {
  int lane = threadIdx.x & 31;
  int v = x[threadIdx.x];
  for (int i = 0; i < n; ++i) {
    if (lane < 8) {
      if (v > 3)
        continue;
      v += __shfl_down(v, 4);
      // DIAG: [[@LINE-1]]:12: warning: '__shfl_down' was removed{{.*}}[warp-sync-intrinsics]
      // DIAG: note: no ballot fix: some lanes may leave the branch at line [[#@LINE-3]] before the call
    }
  }
  x[threadIdx.x] = v;
}

__global__ void nested(int *x) {
  int lane = threadIdx.x & 31;
  int v = x[threadIdx.x];
  if (v > 0) {
    if (lane < 8)
      v += __shfl_down(v, 4);
    // DIAG: [[@LINE-1]]:12: warning: '__shfl_down' was removed{{.*}}[warp-sync-intrinsics]
    // DIAG: note: no ballot fix: the 'if' is itself under divergent control flow (line [[#@LINE-4]])
  } else if (lane < 4)
    v += __shfl_down(v, 2);
  // DIAG: [[@LINE-1]]:10: warning: '__shfl_down' was removed{{.*}}[warp-sync-intrinsics]
  // DIAG: note: no ballot fix: the 'if' is not a statement of a block (an 'else if' or an unbraced body), where a declaration could go before it
  x[threadIdx.x] = v;
}

__global__ void loop(float *x) {
  for (int k = 0; k < threadIdx.x; ++k)
    x[k] = __shfl_up(x[k], 1);
  // DIAG: [[@LINE-1]]:12: warning: '__shfl_up' was removed{{.*}}[warp-sync-intrinsics]
  // DIAG: note: no ballot fix: which lanes reach the call may change from one iteration to the next
}

__global__ void tail(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  out[i] = __shfl_xor(in[i], 1);
  // DIAG: [[@LINE-1]]:12: warning: '__shfl_xor' was removed{{.*}}[warp-sync-intrinsics]
  // DIAG: note: no ballot fix: which lanes reach the call depends on the return at line [[#@LINE-3]], not on one condition
}
// DIAG: 6 warning(s) for sm_90; 0 fixed
