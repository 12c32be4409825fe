// REQUIRES: cuda
// Already a grid-stride loop; an early return instead of the guard.
// RUN: not forge-port propose %s --kernel strided --rules=grid-stride 2>&1 | FileCheck %s --check-prefix=STRIDED
// RUN: not forge-port propose %s --kernel early --rules=grid-stride 2>&1 | FileCheck %s --check-prefix=EARLY
// RUN: not forge-port propose %s --kernel syncs --rules=grid-stride 2>&1 | FileCheck %s --check-prefix=SYNCS

__global__ void strided(float *y, int n) {
  const int stride = blockDim.x * gridDim.x;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
    y[i] = 0.f;
}
// STRIDED: forge-port: note: grid-stride: not applicable: the kernel already loops over a grid stride

__global__ void early(float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  y[i] = 0.f;
}
// EARLY: forge-port: note: grid-stride: not applicable: not an elementwise kernel: the kernel returns early ('if (i >= n) return;'); only 'if (i < n) body' is rewritten

__global__ void syncs(float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    y[i] = 1.f;
    __syncthreads();
  }
}
// SYNCS: forge-port: note: grid-stride: not applicable: not an elementwise kernel: the guarded body calls '__syncthreads'
