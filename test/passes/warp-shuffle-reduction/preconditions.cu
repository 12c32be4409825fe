// REQUIRES: cuda
// Each precondition that fails says which, and nothing is proposed.
// RUN: not forge-port propose %s --kernel sum_over_block --block 32 --rules=warp-shuffle-reduction 2>&1 | FileCheck %s --check-prefix=SMALL
// RUN: not forge-port propose %s --kernel sum_over_block --block 192 --rules=warp-shuffle-reduction 2>&1 | FileCheck %s --check-prefix=POW2
// RUN: not forge-port propose %s --kernel sum_over_block --rules=warp-shuffle-reduction 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not forge-port propose %s --kernel sum_over_block --block 16,16 --rules=warp-shuffle-reduction 2>&1 | FileCheck %s --check-prefix=TWOD
// RUN: not forge-port propose %s --kernel difference --block 256 --rules=warp-shuffle-reduction 2>&1 | FileCheck %s --check-prefix=OP
// RUN: not forge-port propose %s --kernel halves --block 256 --rules=warp-shuffle-reduction 2>&1 | FileCheck %s --check-prefix=TYPE
// RUN: not forge-port propose %s --kernel no_barrier --block 256 --rules=warp-shuffle-reduction 2>&1 | FileCheck %s --check-prefix=SHAPE
// RUN: not forge-port propose %s --kernel reads_partials --block 256 --rules=warp-shuffle-reduction 2>&1 | FileCheck %s --check-prefix=LATER
// SMALL: forge-port: note: warp-shuffle-reduction: not applicable: the tree runs over 32 threads; the rule needs a power of two of at least 64 (two warps)
// POW2: forge-port: note: warp-shuffle-reduction: not applicable: the tree runs over 192 threads; the rule needs a power of two
// UNKNOWN: forge-port: note: warp-shuffle-reduction: not applicable: the block size is not known (the tree starts at blockDim.x / 2; give a spec or a launch with a constant block)
// TWOD: forge-port: note: warp-shuffle-reduction: not applicable: the block is 16x16x1, but the tree runs over threadIdx.x
// OP: forge-port: note: warp-shuffle-reduction: not applicable: no shared-memory tree reduction {{.*}}; the loop at line {{[0-9]+}} is not one: the step's operator '-' is not one of +, *, &, |, ^, min, max, fminf, fmaxf
// TYPE: forge-port: note: warp-shuffle-reduction: not applicable: the element type 'short' of 'sh' has 2 bytes; warp shuffles here take 4- and 8-byte values
// SHAPE: forge-port: note: warp-shuffle-reduction: not applicable: no shared-memory tree reduction {{.*}}; the loop at line {{[0-9]+}} is not one: the loop body is not 'if (tid < s) ...; __syncthreads();'
// LATER: forge-port: note: warp-shuffle-reduction: not applicable: 'sd' is used after the reduction other than as 'sd[0]' (line {{[0-9]+}})

__global__ void sum_over_block(const float *in, float *out) {
  __shared__ float sd[1024];
  sd[threadIdx.x] = in[blockIdx.x * blockDim.x + threadIdx.x];
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      sd[threadIdx.x] += sd[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    out[blockIdx.x] = sd[0];
}

__global__ void difference(const float *in, float *out) {
  __shared__ float sd[256];
  sd[threadIdx.x] = in[blockIdx.x * 256 + threadIdx.x];
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      sd[threadIdx.x] -= sd[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    out[blockIdx.x] = sd[0];
}

__global__ void halves(const short *in, short *out) {
  __shared__ short sh[256];
  sh[threadIdx.x] = in[blockIdx.x * 256 + threadIdx.x];
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      sh[threadIdx.x] += sh[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    out[blockIdx.x] = sh[0];
}

__global__ void no_barrier(const float *in, float *out) {
  __shared__ float sd[256];
  sd[threadIdx.x] = in[blockIdx.x * 256 + threadIdx.x];
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      sd[threadIdx.x] += sd[threadIdx.x + s];
    __syncwarp();
    __syncthreads();
  }
  if (threadIdx.x == 0)
    out[blockIdx.x] = sd[0];
}

__global__ void reads_partials(const float *in, float *out) {
  __shared__ float sd[256];
  sd[threadIdx.x] = in[blockIdx.x * 256 + threadIdx.x];
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      sd[threadIdx.x] += sd[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x < 2)
    out[blockIdx.x * 2 + threadIdx.x] = sd[threadIdx.x];
}
