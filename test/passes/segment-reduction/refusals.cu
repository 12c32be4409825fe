// What segment-reduction declines, each with its reason (the kernel model's
// terms): an output not at blockIdx.x, a segment that is not unit-stride in
// threadIdx.x or not read whole, a non-associative step, another global
// write, a read of the tree's partials, more work in the tree's loop, no
// guard that bounds the blocks, a tree over half the block, a block that is
// not whole warps, an unknown block, the CUDA samples' register-carried tree.
// RUN: not forge-port propose %s --kernel out_by_thread --block 256 --rules=segment-reduction 2>&1 | FileCheck %s --check-prefix=OUT
// RUN: not forge-port propose %s --kernel strided --block 256 --rules=segment-reduction 2>&1 | FileCheck %s --check-prefix=STRIDE
// RUN: not forge-port propose %s --kernel gappy --block 256 --rules=segment-reduction 2>&1 | FileCheck %s --check-prefix=GAP
// RUN: not forge-port propose %s --kernel differences --block 256 --rules=segment-reduction 2>&1 | FileCheck %s --check-prefix=ASSOC
// RUN: not forge-port propose %s --kernel also_copies --block 256 --rules=segment-reduction 2>&1 | FileCheck %s --check-prefix=WRITE
// RUN: not forge-port propose %s --kernel reads_partials --block 256 --rules=segment-reduction 2>&1 | FileCheck %s --check-prefix=PARTIAL
// RUN: not forge-port propose %s --kernel tree_counts --block 256 --rules=segment-reduction 2>&1 | FileCheck %s --check-prefix=BODY
// RUN: not forge-port propose %s --kernel unguarded --block 256 --rules=segment-reduction 2>&1 | FileCheck %s --check-prefix=GUARD
// RUN: not forge-port propose %s --kernel half_tree --block 256 --rules=segment-reduction 2>&1 | FileCheck %s --check-prefix=HALF
// RUN: not forge-port propose %s --kernel out_by_thread --block 96 --rules=segment-reduction 2>&1 | FileCheck %s --check-prefix=WARPS
// RUN: not forge-port propose %s --kernel unguarded --rules=segment-reduction 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not forge-port propose %s --kernel samples_reduce3 --block 256 --rules=segment-reduction 2>&1 | FileCheck %s --check-prefix=REG
// OUT: segment-reduction: not applicable: the output 'out[blockIdx.x * 2 + 1]' is not at blockIdx.x (one output per block): its index is '2 * blockIdx.x + 1'
// STRIDE: segment-reduction: not applicable: the load 'in[i]' is not unit-stride in threadIdx.x (index 'blockIdx.x + threadIdx.x * gridDim.x'): the block's segment is not contiguous
// GAP: segment-reduction: not applicable: the block's segment of 2 x blockDim.x elements is not read whole (loads at 1 of its 2 parts): it is not contiguous
// ASSOC: segment-reduction: not applicable: the tree at line {{[0-9]+}}: the step's operator '-=' is not associative
// WRITE: segment-reduction: not applicable: the kernel writes 'copy[i]' at line {{[0-9]+}} besides the block's output (one store of thread 0 after the tree)
// PARTIAL: segment-reduction: not applicable: 'sdata[1]' at line {{[0-9]+}} uses 'sdata' after the tree other than by reading 'sdata[0]'
// BODY: segment-reduction: not applicable: the tree at line {{[0-9]+}}: its body does more than the guarded step and the barrier (line {{[0-9]+}}), which the rewrite would drop
// GUARD: segment-reduction: not applicable: no guard of the load 'in[i]' bounds the blocks ('i < n' with i = blockIdx.x * blockDim.x + threadIdx.x): once the grid shrinks, the rewrite would not know how many segments the original grid had
// HALF: segment-reduction: not applicable: the tree at line {{[0-9]+}}: the stride does not start at half the block ('s = blockDim.x / 2' or a constant)
// WARPS: segment-reduction: not applicable: the block has 96 threads; the rewrite needs a power of two that is a multiple of 32
// UNKNOWN: segment-reduction: not applicable: the block size is not known (the tree runs over blockDim.x): give a spec, a --block or a launch with a constant block, so that it is known to be a multiple of 32
// REG: segment-reduction: not applicable: the tree at line {{[0-9]+}}: the step does not combine 'sdata[tid]' with 'sdata[tid + s]'

__global__ void out_by_thread(const float *in, float *out, unsigned n) {
  extern __shared__ float sdata[];
  unsigned tid = threadIdx.x;
  unsigned i = blockIdx.x * blockDim.x + tid;
  sdata[tid] = i < n ? in[i] : 0.0f;
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s)
      sdata[tid] += sdata[tid + s];
    __syncthreads();
  }
  if (tid == 0)
    out[blockIdx.x * 2 + 1] = sdata[0];
}

__global__ void strided(const float *in, float *out, unsigned n) {
  extern __shared__ float sdata[];
  unsigned tid = threadIdx.x;
  unsigned i = tid * gridDim.x + blockIdx.x;
  sdata[tid] = i < n ? in[i] : 0.0f;
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s)
      sdata[tid] += sdata[tid + s];
    __syncthreads();
  }
  if (tid == 0)
    out[blockIdx.x] = sdata[0];
}

__global__ void gappy(const float *in, float *out, unsigned n) {
  extern __shared__ float sdata[];
  unsigned tid = threadIdx.x;
  unsigned i = blockIdx.x * (blockDim.x * 2) + tid;
  sdata[tid] = i < n ? in[i] : 0.0f;
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s)
      sdata[tid] += sdata[tid + s];
    __syncthreads();
  }
  if (tid == 0)
    out[blockIdx.x] = sdata[0];
}

__global__ void differences(const float *in, float *out, unsigned n) {
  extern __shared__ float sdata[];
  unsigned tid = threadIdx.x;
  unsigned i = blockIdx.x * blockDim.x + tid;
  sdata[tid] = i < n ? in[i] : 0.0f;
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s)
      sdata[tid] -= sdata[tid + s];
    __syncthreads();
  }
  if (tid == 0)
    out[blockIdx.x] = sdata[0];
}

__global__ void also_copies(const float *in, float *out, float *copy, unsigned n) {
  extern __shared__ float sdata[];
  unsigned tid = threadIdx.x;
  unsigned i = blockIdx.x * blockDim.x + tid;
  sdata[tid] = i < n ? in[i] : 0.0f;
  if (i < n)
    copy[i] = in[i];
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s)
      sdata[tid] += sdata[tid + s];
    __syncthreads();
  }
  if (tid == 0)
    out[blockIdx.x] = sdata[0];
}

__global__ void reads_partials(const float *in, float *out, unsigned n) {
  extern __shared__ float sdata[];
  unsigned tid = threadIdx.x;
  unsigned i = blockIdx.x * blockDim.x + tid;
  sdata[tid] = i < n ? in[i] : 0.0f;
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s)
      sdata[tid] += sdata[tid + s];
    __syncthreads();
  }
  if (tid == 0)
    out[blockIdx.x] = sdata[0] + sdata[1];
}

__global__ void tree_counts(const float *in, float *out, int *steps, unsigned n) {
  extern __shared__ float sdata[];
  unsigned tid = threadIdx.x;
  unsigned i = blockIdx.x * blockDim.x + tid;
  sdata[tid] = i < n ? in[i] : 0.0f;
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s)
      sdata[tid] += sdata[tid + s];
    if (tid == 0)
      steps[blockIdx.x]++;
    __syncthreads();
  }
  if (tid == 0)
    out[blockIdx.x] = sdata[0];
}

__global__ void unguarded(const float *in, float *out) {
  extern __shared__ float sdata[];
  unsigned tid = threadIdx.x;
  unsigned i = blockIdx.x * blockDim.x + tid;
  sdata[tid] = in[i];
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s)
      sdata[tid] += sdata[tid + s];
    __syncthreads();
  }
  if (tid == 0)
    out[blockIdx.x] = sdata[0];
}

__global__ void half_tree(const float *in, float *out, unsigned n) {
  extern __shared__ float sdata[];
  unsigned tid = threadIdx.x;
  unsigned i = blockIdx.x * blockDim.x + tid;
  sdata[tid] = i < n ? in[i] : 0.0f;
  __syncthreads();
  for (unsigned s = blockDim.x / 4; s > 0; s >>= 1) {
    if (tid < s)
      sdata[tid] += sdata[tid + s];
    __syncthreads();
  }
  if (tid == 0)
    out[blockIdx.x] = sdata[0];
}

// The CUDA samples' reduce3: the running sum is carried in a register
// through the tree (`sdata[tid] = mySum = mySum + sdata[tid + s]`).
__global__ void samples_reduce3(const float *g_idata, float *g_odata, unsigned int n) {
  extern __shared__ float sdata[];
  unsigned int tid = threadIdx.x;
  unsigned int i = blockIdx.x * (blockDim.x * 2) + threadIdx.x;
  float mySum = (i < n) ? g_idata[i] : 0;
  if (i + blockDim.x < n)
    mySum += g_idata[i + blockDim.x];
  sdata[tid] = mySum;
  __syncthreads();
  for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s)
      sdata[tid] = mySum = mySum + sdata[tid + s];
    __syncthreads();
  }
  if (tid == 0)
    g_odata[blockIdx.x] = mySum;
}
