// A call written inside a macro is reported at its use and not rewritten:
// the macro may serve other code.
// RUN: forge-port port --checks=warp-sync-intrinsics --to sm_90 --no-validate %s -o %t.cu -- %cuda_mock_flags \
// RUN:   > %t.log 2>&1 || true
// RUN: FileCheck %s --check-prefix=DIAG --input-file=%t.log --implicit-check-not='warning:'
// RUN: FileCheck %s --check-prefix=FIX --match-full-lines --input-file=%t.cu

#define WARP_REDUCE_STEP(v, o) v += __shfl_down(v, o)
// FIX: #define WARP_REDUCE_STEP(v, o) v += __shfl_down(v, o)

__device__ float warpSum(float v) {
  for (int offset = 16; offset > 0; offset /= 2)
    WARP_REDUCE_STEP(v, offset);
  // DIAG: [[@LINE-1]]:5: warning: '__shfl_down' was removed{{.*}}[warp-sync-intrinsics]
  // DIAG: note: not rewritten: the call is written inside a macro
  // FIX: WARP_REDUCE_STEP(v, offset);
  return v;
}

__global__ void k(float *x) { x[0] = warpSum(x[threadIdx.x]); }
