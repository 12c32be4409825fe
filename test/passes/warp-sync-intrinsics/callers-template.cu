// A function template is one function for its calling contexts: the call in
// its pattern is decided once, over the calls of every instantiation (here
// one under a divergent branch), and over the calls written in templates
// that are never instantiated (a dependent call, resolved only by name).
// RUN: forge-port port --checks=warp-sync-intrinsics --to sm_90 --no-validate %s -o %t.cu -- %cuda_mock_flags \
// RUN:   > %t.log 2>&1 || true
// RUN: FileCheck %s --check-prefix=DIAG --input-file=%t.log --implicit-check-not='warning:'
// RUN: FileCheck %s --check-prefix=FIX --match-full-lines --input-file=%t.cu

template <typename T, int WIDTH>
__device__ T reduce(T v) {
  for (int offset = WIDTH / 2; offset > 0; offset /= 2)
    v += __shfl_xor(v, offset, WIDTH);
  // DIAG: [[@LINE-1]]:10: warning: '__shfl_xor' was removed in CUDA 13; use '__shfl_xor_sync' [warp-sync-intrinsics]
  // FIX: v += __shfl_xor(v, offset, WIDTH);
  return v;
}

__global__ void whole(float *f) { f[0] = reduce<float, 32>(f[threadIdx.x]); }

__global__ void eight(int *i) {
  if (threadIdx.x < 8)
    i[threadIdx.x] = reduce<int, 8>(i[threadIdx.x]);
  // DIAG: [[@LINE-1]]:22: note: not rewritten: 'reduce' is called at line [[#@LINE-1]] under 'threadIdx.x < 8', which not every lane of a warp satisfies; choose the lane mask by hand
}

// Never instantiated: the call of 'broadcast' is dependent on T.
template <typename T> __device__ T broadcast(T v) { return __shfl(v, 0); }
// DIAG: [[@LINE-1]]:60: warning: '__shfl' was removed in CUDA 13; use '__shfl_sync' [warp-sync-intrinsics]
// FIX: template <typename T> __device__ T broadcast(T v) { return __shfl(v, 0); }
template <typename T> __global__ void odd(T *x) {
  if (threadIdx.x % 2 == 1)
    x[threadIdx.x] = broadcast(x[threadIdx.x]);
  // DIAG: [[@LINE-1]]:22: note: not rewritten: 'broadcast' is called at line [[#@LINE-1]] under 'threadIdx.x % 2 == 1', which not every lane of a warp satisfies; choose the lane mask by hand
}
// DIAG: 2 warning(s) for sm_90; 0 fixed
