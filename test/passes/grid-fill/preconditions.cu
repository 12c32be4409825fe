// REQUIRES: cuda
// What grid-fill declines, each with its reason.
// RUN: not forge-port propose %s --kernel dot --spec %S/Inputs/dot.json --rules=grid-fill -- -DPERBLOCK 2>&1 | FileCheck %s --check-prefix=PERBLOCK
// RUN: not forge-port propose %s --kernel dot --spec %S/Inputs/dot.json --rules=grid-fill -- -DCALLEE 2>&1 | FileCheck %s --check-prefix=CALLEE
// RUN: not forge-port propose %s --kernel dot --spec %S/Inputs/dot.json --rules=grid-fill -- -DGUARD 2>&1 | FileCheck %s --check-prefix=GUARD
// RUN: not forge-port propose %s --kernel dot --spec %S/Inputs/dot.json --rules=grid-fill -- -DBLOCKSTRIDE 2>&1 | FileCheck %s --check-prefix=BLOCKSTRIDE
// RUN: not forge-port propose %s --kernel dot --spec %S/Inputs/dot.json --rules=grid-fill -- -DVARYING 2>&1 | FileCheck %s --check-prefix=VARYING
// RUN: not forge-port propose %s --kernel dot --spec %S/Inputs/dot.json --rules=grid-fill -- -DLASTBLOCK 2>&1 | FileCheck %s --check-prefix=LASTBLOCK
// RUN: not forge-port propose %s --kernel dot --spec %S/Inputs/dot-full.json --rules=grid-fill -- -DFULL 2>&1 | FileCheck %s --check-prefix=FULL
// RUN: not forge-port propose %s --kernel dot --block 256 --rules=grid-fill -- -DFULL 2>&1 | FileCheck %s --check-prefix=NOSPEC

#ifdef PERBLOCK
// One partial per block: the output's size is the grid's.
__global__ void dot(const float *a, const float *b, float *c, int n) {
  __shared__ float cache[256];
  float s = 0.f;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    s += a[i] * b[i];
  cache[threadIdx.x] = s;
  __syncthreads();
  if (threadIdx.x == 0) {
    float t = 0.f;
    for (int k = 0; k < 256; ++k) t += cache[k];
    c[blockIdx.x] = t;
  }
}
#endif
// PERBLOCK: grid-fill: not applicable: 'blockIdx.x' is read at line {{[0-9]+}} outside the head of the grid-stride loop: the kernel depends on the grid

#ifdef CALLEE
__device__ int block_of() { return blockIdx.x; }
__global__ void dot(const float *a, const float *b, float *c, int n) {
  float s = 0.f;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    s += a[i] * b[i];
  if (block_of() == 0)
    atomicAdd(c, s);
}
#endif
// CALLEE: grid-fill: not applicable: a device function the kernel calls reads 'blockIdx.x'

#ifdef GUARD
// The first block does something the others do not: still per block.
__global__ void dot(const float *a, const float *b, float *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float s = 0.f;
  for (; i < n; i += blockDim.x * gridDim.x)
    s += a[i] * b[i];
  if (gridDim.x > 1)
    atomicAdd(c, s);
}
#endif
// GUARD: grid-fill: not applicable: 'gridDim.x' is read at line {{[0-9]+}} outside the head of the grid-stride loop

#ifdef BLOCKSTRIDE
// One block walks the array: the block's threads share it, the grid does not.
__global__ void dot(const float *a, const float *b, float *c, int n) {
  float s = 0.f;
  for (int i = threadIdx.x; i < n; i += blockDim.x)
    s += a[i] * b[i];
  atomicAdd(c, s);
}
#endif
// BLOCKSTRIDE: grid-fill: not applicable: no grid-stride loop over x: the kernel's work is tied to its grid

#ifdef VARYING
// Each thread's own bound: not a loop that covers the elements.
__global__ void dot(const float *a, const float *b, float *c, int n) {
  float s = 0.f;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n - (int)threadIdx.x; i += blockDim.x * gridDim.x)
    s += a[i] * b[i];
  atomicAdd(c, s);
}
#endif
// VARYING: grid-fill: not applicable: the loop over 'i' at line {{[0-9]+}} has no bound that every thread shares

#ifdef LASTBLOCK
// The last block to finish does the final sum: it counts the grid.
__device__ unsigned int done = 0;
__global__ void dot(const float *a, const float *b, float *c, int n) {
  float s = 0.f;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    s += a[i] * b[i];
  atomicAdd(c, s);
  __threadfence();
  if (threadIdx.x == 0 && atomicInc(&done, gridDim.x) == gridDim.x - 1)
    c[0] *= 2.0f;
}
#endif
// LASTBLOCK: grid-fill: not applicable: 'gridDim.x' is read at line {{[0-9]+}} outside the head of the grid-stride loop

#ifdef FULL
__global__ void dot(const float *a, const float *b, float *c, int n) {
  float s = 0.f;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    s += a[i] * b[i];
  atomicAdd(c, s);
}
#endif
// FULL: grid-fill: not applicable: the spec's launch has 1056 blocks of 256 threads: between half a wave and 8 waves of the GPU (132 SMs x 8 blocks), so the grid already fills it
// NOSPEC: grid-fill: not applicable: no launch spec with a grid: the rule changes the spec's grid.x
