// Histograms that keep their bins in a __shared__ array already (the
// textbook per-block histogram), in the spellings histogram-privatize takes
// (test/passes/histogram-privatize/shared-bins.cu); checked on the GPU by
// test/gpu/rules/histogram-shared.cu.

// utils/bench/naive/hist_gs.cu: a for loop, the stride in a local.
__global__ void sh_gs(const unsigned char *data, unsigned int *hist, int n) {
  __shared__ unsigned int local[256];
  for (int b = threadIdx.x; b < 256; b += blockDim.x)
    local[b] = 0;
  __syncthreads();
  const int stride = blockDim.x * gridDim.x;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
    atomicAdd(&local[data[i]], 1u);
  __syncthreads();
  for (int b = threadIdx.x; b < 256; b += blockDim.x)
    atomicAdd(&hist[b], local[b]);
}

// "CUDA by Example", ch. 9: blocks of 256, a while loop over a 'long' size.
__global__ void sh_book(unsigned char *buffer, long size, unsigned int *histo) {
  __shared__ unsigned int temp[256];
  temp[threadIdx.x] = 0;
  __syncthreads();
  int i = threadIdx.x + blockIdx.x * blockDim.x;
  int offset = blockDim.x * gridDim.x;
  while (i < size) {
    atomicAdd(&temp[buffer[i]], 1);
    i += offset;
  }
  __syncthreads();
  atomicAdd(&(histo[threadIdx.x]), temp[threadIdx.x]);
}

// Bins zeroed and flushed under 'threadIdx.x < 256' (blocks of 256 or more).
__global__ void sh_guarded(const unsigned char *data, unsigned int *hist, int n) {
  __shared__ unsigned int bins[256];
  if (threadIdx.x < 256)
    bins[threadIdx.x] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    atomicAdd(&bins[data[i]], 1u);
  __syncthreads();
  if (threadIdx.x < 256)
    atomicAdd(&hist[threadIdx.x], bins[threadIdx.x]);
}

// 64 bins of signed int keys, the remainder made non-negative.
__global__ void sh_mod64(const int *keys, int *hist, int n) {
  __shared__ int h[64];
  for (int b = threadIdx.x; b < 64; b += blockDim.x)
    h[b] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    int b = keys[i] % 64;
    if (b < 0)
      b += 64;
    atomicAdd(&h[b], 1);
  }
  __syncthreads();
  for (int b = threadIdx.x; b < 64; b += blockDim.x)
    atomicAdd(&hist[b], h[b]);
}

// 1024 bins of 16-bit keys.
__global__ void sh_1024(const unsigned short *keys, unsigned int *hist, int n) {
  __shared__ unsigned int s[1024];
  for (int b = threadIdx.x; b < 1024; b += blockDim.x)
    s[b] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    atomicAdd(&s[keys[i] >> 6], 1u);
  __syncthreads();
  for (int b = threadIdx.x; b < 1024; b += blockDim.x)
    atomicAdd(&hist[b], s[b]);
}

// Character frequencies of (signed) chars.
__global__ void sh_char(const char *text, unsigned int *freq, int n) {
  __shared__ unsigned int counts[256];
  for (int b = threadIdx.x; b < 256; b += blockDim.x)
    counts[b] = 0;
  __syncthreads();
  int stride = blockDim.x * gridDim.x;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
    atomicAdd(&counts[(unsigned char)text[i]], 1u);
  __syncthreads();
  for (int b = threadIdx.x; b < 256; b += blockDim.x)
    atomicAdd(&freq[b], counts[b]);
}

// One key per thread under 'if (i < n)' (blocks of 256, a grid that covers n).
__global__ void sh_one(const unsigned char *data, unsigned int *hist, int n) {
  __shared__ unsigned int local[256];
  local[threadIdx.x] = 0;
  __syncthreads();
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicAdd(&local[data[i]], 1u);
  __syncthreads();
  atomicAdd(&hist[threadIdx.x], local[threadIdx.x]);
}

// A histogram per block (gridDim.x * 256 counts).
__global__ void sh_perblock(const unsigned char *data, unsigned int *partial, int n) {
  __shared__ unsigned int local[256];
  for (int b = threadIdx.x; b < 256; b += blockDim.x)
    local[b] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    atomicAdd(&local[data[i]], 1u);
  __syncthreads();
  for (int b = threadIdx.x; b < 256; b += blockDim.x)
    partial[blockIdx.x * 256 + b] = local[b];
}
