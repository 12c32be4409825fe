// REQUIRES: cuda
// Kernels correct for any grid (a grid-stride loop covers the elements,
// nothing else reads the grid) get a grid of FORGE_GRID_WAVES waves; the
// source is not edited. Each kernel is named 'dot' in its own namespace-free
// copy through -D, so that one spec serves all.
// RUN: forge-port propose %s --kernel dot --spec %S/Inputs/dot.json --rules=grid-fill -- -DBOOK 2>&1 | FileCheck %s --check-prefix=BOOK
// RUN: forge-port propose %s --kernel dot --spec %S/Inputs/dot.json --rules=grid-fill --format=json -- -DBOOK | FileCheck %s --check-prefix=JSON
// RUN: forge-port propose %s --kernel dot --spec %S/Inputs/dot.json --rules=grid-fill -- -DLOCALS 2>&1 | FileCheck %s --check-prefix=LOCALS
// RUN: forge-port propose %s --kernel dot --spec %S/Inputs/dot-perelement.json --rules=grid-fill -- -DSIZE_T 2>&1 | FileCheck %s --check-prefix=CAP
// RUN: forge-port propose %s --kernel dot --spec %S/Inputs/dot.json --rules=grid-fill -- -DHELPER 2>&1 | FileCheck %s --check-prefix=HELPER
// RUN: forge-port propose %s --kernel dot --spec %S/Inputs/dot.json --rules=grid-fill --apply -o %t.cu -- -DBOOK 2>&1 | FileCheck %s --check-prefix=APPLY
// RUN: diff %s %t.cu

#ifdef BOOK
// "CUDA by Example": a while loop over tid, a shared-memory tree, one
// atomicAdd per block; launched with 32 blocks.
#define THREADS 256
__global__ void dot(const float *a, const float *b, float *c, int n) {
  __shared__ float cache[THREADS];
  int tid = threadIdx.x + blockIdx.x * blockDim.x;
  int cacheIndex = threadIdx.x;
  float temp = 0;
  while (tid < n) {
    temp += a[tid] * b[tid];
    tid += blockDim.x * gridDim.x;
  }
  cache[cacheIndex] = temp;
  __syncthreads();
  int i = blockDim.x / 2;
  while (i != 0) {
    if (cacheIndex < i)
      cache[cacheIndex] += cache[cacheIndex + i];
    __syncthreads();
    i /= 2;
  }
  if (cacheIndex == 0)
    atomicAdd(c, cache[0]);
}
#endif
// BOOK: # expert:grid-fill: grid.x 32 -> 132 * FORGE_GRID_WAVES * 8 (FORGE_GRID_WAVES waves of the GPU): the grid-stride loop is correct for any grid
// BOOK: # The launch has 32 blocks of 256 threads (8192 threads), less than half of what the GPU runs at once (132 SMs x 8 blocks)
// BOOK: # spec: grid.x -> 132 * FORGE_GRID_WAVES * 8
// BOOK-NEXT: # spec: new tunable FORGE_GRID_WAVES in {4, 1, 2, 8, 16, 32}
// BOOK-NEXT: # spec: why: the grid-stride loop over 'tid' (line {{[0-9]+}}) visits every element for any grid, and nothing else in the kernel reads blockIdx.x or gridDim.x
// BOOK-NOT: SEARCH
// JSON: "edits": ""
// JSON: "grid.x": "132 * FORGE_GRID_WAVES * 8"
// APPLY: applied expert:grid-fill: grid.x 32 -> 132 * FORGE_GRID_WAVES * 8
// APPLY: grid-fill: spec: grid.x -> 132 * FORGE_GRID_WAVES * 8

#ifdef LOCALS
// The index and the stride in locals; a histogram-like atomic per element.
__global__ void dot(const float *a, const float *b, float *c, int n) {
  const int gid = blockIdx.x * blockDim.x + threadIdx.x;
  const int stride = gridDim.x * blockDim.x;
  for (int k = gid; k < n; k += stride)
    atomicAdd(c, a[k] * b[k]);
}
#endif
// LOCALS: # expert:grid-fill: grid.x 32 -> 132 * FORGE_GRID_WAVES * 8
// LOCALS: # spec: why: the grid-stride loop over 'k' (line {{[0-9]+}})

#ifdef SIZE_T
// size_t indices with casts; launched with one thread per element: capped.
__global__ void dot(const float *a, const float *b, float *c, int n) {
  float s = 0.f;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < (size_t)n;
       i += (size_t)blockDim.x * gridDim.x)
    s += a[i] * b[i];
  atomicAdd(c, s);
}
#endif
// CAP: # expert:grid-fill: grid.x capped at FORGE_GRID_WAVES waves (131072 -> 4224 blocks at 4 waves)
// CAP: # spec: grid.x -> min(ceil_div(N, 256), 132 * FORGE_GRID_WAVES * 8)

#ifdef HELPER
// The work in a device function that does not read the grid.
__device__ float term(const float *a, const float *b, int k) { return a[k] * b[k]; }
__global__ void dot(const float *a, const float *b, float *c, int n) {
  float s = 0.f;
  for (int k = blockIdx.x * blockDim.x + threadIdx.x; k < n; k += blockDim.x * gridDim.x)
    s += term(a, b, k);
  atomicAdd(c, s);
}
#endif
// HELPER: # expert:grid-fill: grid.x 32 -> 132 * FORGE_GRID_WAVES * 8
