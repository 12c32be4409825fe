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

// A stored value that varies between threads other than through the index:
// in a grid-stride loop (or with vectors) another thread would store it.
// RUN: not forge-port propose %s --kernel tid_value --rules=grid-stride,vectorize 2>&1 | FileCheck %s --check-prefix=TID
__global__ void tid_value(const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i] + threadIdx.x;
}
// TID: forge-port: note: vectorize: not applicable: the stored value uses 'threadIdx.x' (line [[@LINE-2]]), which differs between threads ({{.*}}): moving an element to another thread would change it
// TID: forge-port: note: grid-stride: not applicable: the stored value uses 'threadIdx.x' (line [[@LINE-3]]), which differs between threads
