// In a template the call is rewritten once, in the pattern, however many
// times the template is instantiated.
// RUN: forge-port port --checks=warp-sync-intrinsics --to sm_90 --no-validate %s -o %t.cu -- %cuda_mock_flags \
// RUN:   > %t.log 2>&1
// RUN: FileCheck %s --check-prefix=DIAG --input-file=%t.log --implicit-check-not='warning:'
// RUN: FileCheck %s --check-prefix=FIX --match-full-lines --input-file=%t.cu
// RUN: %clang_cuda_mock -fsyntax-only %t.cu

template <typename T, int WIDTH>
__device__ T reduce(T v) {
  for (int offset = WIDTH / 2; offset > 0; offset /= 2)
    v += __shfl_xor(v, offset, WIDTH);
  // DIAG: [[@LINE-1]]:10: warning: '__shfl_xor' was removed in CUDA 13; use '__shfl_xor_sync' [warp-sync-intrinsics]
  // FIX: v += __shfl_xor_sync(0xffffffff, v, offset, WIDTH);
  return v;
}

__global__ void k(float *f, int *i) {
  f[0] = reduce<float, 32>(f[threadIdx.x]);
  i[0] = reduce<int, 16>(i[threadIdx.x]);
}
// DIAG: 1 warning(s) for sm_90; 1 fixed
