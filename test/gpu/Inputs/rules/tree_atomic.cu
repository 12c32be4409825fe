// Per-block shared-memory trees whose result thread 0 combines with one
// atomic: the inputs of test/gpu/rules/hierarchical-reduction-tree.cu (the
// lit test applies hierarchical-reduction to each kernel in turn).

// The dot product: a static array, a halving tree (blocks up to 256).
__global__ void tree_dot(const float *a, const float *b, float *result, int n) {
  __shared__ float cache[256];
  int tid = threadIdx.x;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  cache[tid] = i < n ? a[i] * b[i] : 0.0f;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s) cache[tid] += cache[tid + s];
    __syncthreads();
  }
  if (tid == 0) atomicAdd(result, cache[0]);
}

// A sum through dynamic shared memory, a doubling tree with interleaved
// addressing.
__global__ void tree_sum_interleaved(const float *in, float *out, unsigned n) {
  extern __shared__ float sdata[];
  unsigned tid = threadIdx.x;
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  sdata[tid] = (i < n) ? in[i] : 0.0f;
  __syncthreads();
  for (unsigned s = 1; s < blockDim.x; s *= 2) {
    if (tid % (2 * s) == 0)
      sdata[tid] += sdata[tid + s];
    __syncthreads();
  }
  if (tid == 0)
    atomicAdd(out, sdata[0]);
}

// A count of positive elements (unsigned, exact).
__global__ void tree_count(const float *x, unsigned *count, int n) {
  extern __shared__ unsigned hits[];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  hits[threadIdx.x] = (i < n && x[i] > 0.0f) ? 1u : 0u;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      hits[threadIdx.x] += hits[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    atomicAdd(count, hits[0]);
}

// An int maximum into atomicMax, INT_MIN past the end (exact).
__global__ void tree_max_int(const int *v, int *best, int n) {
  extern __shared__ int m[];
  int tid = threadIdx.x;
  int i = blockIdx.x * blockDim.x + tid;
  m[tid] = i < n ? v[i] : (-2147483647 - 1);
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s)
      m[tid] = max(m[tid], m[tid + s]);
    __syncthreads();
  }
  if (tid == 0)
    atomicMax(best, m[0]);
}

// A double sum of squares over a while loop.
__global__ void tree_sumsq_while(const double *x, double *total, int n) {
  extern __shared__ double buf[];
  int tid = threadIdx.x;
  int i = blockIdx.x * blockDim.x + tid;
  buf[tid] = i < n ? x[i] * x[i] : 0.0;
  __syncthreads();
  int s = blockDim.x / 2;
  while (s > 0) {
    if (tid < s)
      buf[tid] += buf[tid + s];
    __syncthreads();
    s >>= 1;
  }
  if (tid == 0)
    atomicAdd(total, buf[0]);
}

// The first add during the load: two elements per thread.
__global__ void tree_first_add(const float *in, float *out, unsigned n) {
  extern __shared__ float sdata[];
  unsigned tid = threadIdx.x;
  unsigned i = blockIdx.x * (blockDim.x * 2) + threadIdx.x;
  sdata[tid] = (i < n ? in[i] : 0.0f) + (i + blockDim.x < n ? in[i + blockDim.x] : 0.0f);
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s)
      sdata[tid] += sdata[tid + s];
    __syncthreads();
  }
  if (tid == 0)
    atomicAdd(out, sdata[0]);
}

// A grid-stride loop into a register, then the tree.
__global__ void tree_sum_loop(const float *in, float *out, int n) {
  extern __shared__ float sdata[];
  float sum = 0.0f;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    sum += in[i];
  sdata[threadIdx.x] = sum;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      sdata[threadIdx.x] += sdata[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    atomicAdd(out, sdata[0]);
}
