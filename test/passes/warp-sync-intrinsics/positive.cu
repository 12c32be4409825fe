// Legacy shuffles and votes that every lane reaches become the _sync forms
// with a full mask (warpSum: in every calling context, here one kernel). With the CUDA 13 (mock) headers they are undeclared:
// the pass works on the AST with errors, and the fix makes it compile.
// RUN: forge-port port --checks=warp-sync-intrinsics --to sm_90 --no-validate %s -o %t.cu -- %cuda_mock_flags \
// RUN:   > %t.log 2>&1
// RUN: FileCheck %s --check-prefix=DIAG --input-file=%t.log --implicit-check-not='warning:'
// RUN: FileCheck %s --check-prefix=FIX --match-full-lines --input-file=%t.cu
// RUN: %clang_cuda_mock -fsyntax-only %t.cu

__device__ float warpSum(float v) {
  for (int offset = 16; offset > 0; offset /= 2)
    v += __shfl_down(v, offset);
  // DIAG: [[@LINE-1]]:10: warning: '__shfl_down' was removed in CUDA 13; use '__shfl_down_sync' [warp-sync-intrinsics]
  // FIX: v += __shfl_down_sync(0xffffffff, v, offset);
  return v;
}

__global__ void votes(const float *in, unsigned *mask, int *flags) {
  float v = in[threadIdx.x];
  unsigned b = __ballot(v > 0.0f);
  // DIAG: [[@LINE-1]]:16: warning: '__ballot' was removed in CUDA 13; use '__ballot_sync' [warp-sync-intrinsics]
  // FIX: unsigned b = __ballot_sync(0xffffffff, v > 0.0f);
  int a = __any(v < 0.0f) + __all(v != 0.0f);
  // DIAG: [[@LINE-1]]:11: warning: '__any' was removed in CUDA 13; use '__any_sync' [warp-sync-intrinsics]
  // DIAG: [[@LINE-2]]:29: warning: '__all' was removed in CUDA 13; use '__all_sync' [warp-sync-intrinsics]
  // FIX: int a = __any_sync(0xffffffff, v < 0.0f) + __all_sync(0xffffffff, v != 0.0f);
  float w = __shfl(v, 0) + __shfl_up(v, 1) + __shfl_xor(v, 2, 16);
  // DIAG: [[@LINE-1]]:13: warning: '__shfl' was removed in CUDA 13; use '__shfl_sync' [warp-sync-intrinsics]
  // DIAG: [[@LINE-2]]:28: warning: '__shfl_up' was removed in CUDA 13; use '__shfl_up_sync' [warp-sync-intrinsics]
  // DIAG: [[@LINE-3]]:46: warning: '__shfl_xor' was removed in CUDA 13; use '__shfl_xor_sync' [warp-sync-intrinsics]
  // FIX: float w = __shfl_sync(0xffffffff, v, 0) + __shfl_up_sync(0xffffffff, v, 1) + __shfl_xor_sync(0xffffffff, v, 2, 16);
  mask[0] = b;
  flags[threadIdx.x] = a + int(w) + int(warpSum(v));
}
// DIAG: 0 error(s), 7 warning(s) for sm_90; 7 fixed
