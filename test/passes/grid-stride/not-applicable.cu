// REQUIRES: cuda
// Kernels grid-stride declines, each with its reason in the model's terms;
// exit 1 and nothing on stdout.
// RUN: not forge-port propose %s --kernel strided --rules=grid-stride 2>&1 | FileCheck %s --check-prefix=STRIDED
// RUN: not forge-port propose %s --kernel syncs --rules=grid-stride 2>&1 | FileCheck %s --check-prefix=SYNCS
// RUN: not forge-port propose %s --kernel sync_after_exit --rules=grid-stride 2>&1 | FileCheck %s --check-prefix=SYNC-EXIT
// RUN: not forge-port propose %s --kernel two_returns --rules=grid-stride 2>&1 | FileCheck %s --check-prefix=RETURNS
// RUN: not forge-port propose %s --kernel atomic_sum --rules=grid-stride 2>&1 | FileCheck %s --check-prefix=ATOMIC
// RUN: not forge-port propose %s --kernel varying_bound --rules=grid-stride 2>&1 | FileCheck %s --check-prefix=BOUND
// RUN: not forge-port propose %s --kernel block_value --rules=grid-stride 2>&1 | FileCheck %s --check-prefix=BLOCK
// RUN: not forge-port propose %s --kernel image --block 16,16 --rules=grid-stride 2>&1 | FileCheck %s --check-prefix=TWOD
// RUN: not forge-port propose %s --kernel unguarded --rules=grid-stride 2>&1 | FileCheck %s --check-prefix=UNGUARDED
// RUN: not forge-port propose %s --kernel after_guard --rules=grid-stride 2>&1 | FileCheck %s --check-prefix=AFTER
// RUN: not forge-port propose %s --kernel grid_value --rules=grid-stride 2>&1 | FileCheck %s --check-prefix=GRID
// RUN: not forge-port propose %s --kernel syncs --rules=grid-stride 2>/dev/null | count 0

__global__ void strided(float *y, int n) {
  const int stride = blockDim.x * gridDim.x;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
    y[i] = 0.f;
}
// STRIDED: forge-port: note: grid-stride: not applicable: the kernel already loops over a grid stride

__global__ void syncs(float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    y[i] = 1.f;
    __syncthreads();
  }
}
// SYNCS: forge-port: note: grid-stride: not applicable: the body calls '__syncthreads' (line 28)

// After an early exit, the rest of the kernel is the body: a barrier there
// would be met a different number of times by each thread.
__global__ void sync_after_exit(float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  y[i] = 1.f;
  __syncthreads();
}
// SYNC-EXIT: forge-port: note: grid-stride: not applicable: the body calls '__syncthreads' (line 39)

__global__ void two_returns(const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  if (x[i] < 0.f) return;
  y[i] = x[i];
}
// RETURNS: forge-port: note: grid-stride: not applicable: the code after the early exit returns again; a loop over elements would stop at it (line 46)

__global__ void atomic_sum(const float *x, float *y, float *sum, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    y[i] = x[i];
    atomicAdd(sum, x[i]);
  }
}
// ATOMIC: forge-port: note: grid-stride: not applicable: not an elementwise kernel: 'atomicAdd(sum, x[i])' (line 55) is an atomic: elements are not independent

__global__ void varying_bound(const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int lim = n - threadIdx.x % 2;
  if (i < lim) y[i] = x[i];
}
// BOUND: forge-port: note: grid-stride: not applicable: the bound of the guard 'i < lim' differs between threads or with the grid

__global__ void block_value(const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i] * blockIdx.x;
}
// BLOCK: forge-port: note: grid-stride: not applicable: the body uses 'blockIdx.x' besides the index 'i': in a loop over elements it would not follow the element (line 69)

__global__ void image(const float *x, float *y, int w, int h) {
  int cx = blockIdx.x * blockDim.x + threadIdx.x;
  int cy = blockIdx.y * blockDim.y + threadIdx.y;
  if (cx < w && cy < h) y[cy * w + cx] = x[cy * w + cx];
}
// TWOD: forge-port: note: grid-stride: not applicable: the elementwise map is 2D (its index '{{.*}}' moves with y or z); only 1D maps over blockIdx.x * blockDim.x + threadIdx.x are rewritten

__global__ void unguarded(const float *x, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  y[i] = x[i];
}
// UNGUARDED: forge-port: note: grid-stride: not applicable: no guard compares the element index with a bound every thread shares ('y[i]' runs unguarded)

__global__ void after_guard(const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i];
  y[0] = 1.f;
}
// AFTER: forge-port: note: grid-stride: not applicable: not an elementwise kernel: 'y[0]' (line 89) is at '0', not at the index 'i' of the store 'y[i]' (line 88)

// gridDim changes when the grid is capped.
__global__ void grid_value(float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = gridDim.x;
}
// GRID: forge-port: note: grid-stride: not applicable: the body uses 'gridDim.x', which a capped grid changes (line 96)

// A stored value that varies between threads other than through the index:
// in a grid-stride loop (or with vectors) another thread would store it.
// RUN: not forge-port propose %s --kernel tid_value --rules=grid-stride,vectorize 2>&1 | FileCheck %s --check-prefix=TID
__global__ void tid_value(const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i] + threadIdx.x;
}
// TID: forge-port: note: vectorize: not applicable: the stored value uses 'threadIdx.x' (line [[@LINE-2]]), which differs between threads ({{.*}}): moving an element to another thread would change it
// TID: forge-port: note: grid-stride: not applicable: the stored value uses 'threadIdx.x' (line [[@LINE-3]]), which differs between threads

// The same through a local computed before the guard.
// RUN: not forge-port propose %s --kernel lane_value --rules=grid-stride 2>&1 | FileCheck %s --check-prefix=LANE
__global__ void lane_value(const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int lane = threadIdx.x % 32;
  if (i < n) y[i] = x[i] * lane;
}
// LANE: forge-port: note: grid-stride: not applicable: the stored value uses 'lane' (line [[@LINE-2]]), which differs between threads ('threadIdx.x' differs between threads): moving an element to another thread would change it
