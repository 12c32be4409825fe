// Float histograms whose bin index is clamped by statements after its
// declaration, the way naive kernels write it: to a parameter number of
// bins (dynamic shared memory in the rewrite) and to a constant one.
// Used by test/gpu/rules/histogram-privatize.cu.

// Form 1: one ?: assignment, under a guard.
__global__ void clamp_ternary(const float *x, unsigned int *bins, int n, int nbins) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    int b = (int)(x[i] * nbins);
    b = b < 0 ? 0 : (b >= nbins ? nbins - 1 : b);
    atomicAdd(&bins[b], 1u);
  }
}

// Form 2: if / else if, after an early exit.
__global__ void clamp_ifelse(const float *x, unsigned int *bins, int n, int nbins) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  int b = (int)(x[i] * nbins);
  if (b < 0)
    b = 0;
  else if (b >= nbins)
    b = nbins - 1;
  atomicAdd(&bins[b], 1u);
}

// Form 3: two ifs, the ceiling as '> nbins - 1'.
__global__ void clamp_ifs(const float *x, unsigned int *bins, int n, int nbins) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    int b = (int)(x[i] * nbins);
    if (b < 0) b = 0;
    if (b > nbins - 1) b = nbins - 1;
    atomicAdd(&bins[b], 1u);
  }
}

// Form 4: min and max statements, in a grid-stride loop.
__global__ void clamp_minmax(const float *x, unsigned int *bins, int n, int nbins) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    int b = (int)(x[i] * nbins);
    b = min(b, nbins - 1);
    b = max(b, 0);
    atomicAdd(&bins[b], 1u);
  }
}

// The local declared outside the grid-stride loop, clamped inside it.
__global__ void clamp_loop(const float *x, unsigned int *bins, int n, int nbins) {
  int b;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    b = (int)(x[i] * nbins);
    if (b >= nbins) b = nbins - 1;
    if (b < 0) b = 0;
    atomicAdd(&bins[b], 1u);
  }
}

// A constant number of bins, the same statements.
#define CLAMP_NB 100
__global__ void const_ternary(const float *x, unsigned int *bins, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    int b = (int)(x[i] * CLAMP_NB);
    b = b < 0 ? 0 : (b >= CLAMP_NB ? CLAMP_NB - 1 : b);
    atomicAdd(&bins[b], 1u);
  }
}

__global__ void const_ifelse(const float *x, unsigned int *bins, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  int b = (int)(x[i] * CLAMP_NB);
  if (b < 0)
    b = 0;
  else if (b >= CLAMP_NB)
    b = CLAMP_NB - 1;
  atomicAdd(&bins[b], 1u);
}
