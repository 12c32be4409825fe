// Naive prefix scans written in several styles, for the scan-template rule.

// One thread walks the whole array: inclusive, float, int count.
__global__ void scan_serial(const float *in, float *out, int n) {
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    float acc = 0.0f;
    for (int i = 0; i < n; ++i) {
      acc += in[i];
      out[i] = acc;
    }
  }
}

// Exclusive: the store comes before the update; int elements, size_t count.
__global__ void scan_exclusive_int(const int *src, int *dst, size_t count) {
  if (threadIdx.x + blockIdx.x * blockDim.x != 0)
    return;
  int running = 0;
  for (size_t i = 0; i < count; i++) {
    dst[i] = running;
    running = running + src[i];
  }
}

// A running maximum of unsigned keys.
__global__ void running_max(const unsigned *keys, unsigned *best, unsigned len) {
  if (threadIdx.x == 0 && blockIdx.x == 0) {
    unsigned m = 0;
    for (unsigned i = 0; i < len; ++i) {
      m = max(m, keys[i]);
      best[i] = m;
    }
  }
}

// In place.
__global__ void scan_in_place(float *data, int n) {
  if (threadIdx.x == 0 && blockIdx.x == 0) {
    float s = 0;
    for (int i = 0; i < n; ++i) {
      s += data[i];
      data[i] = s;
    }
  }
}

// One block, Hillis-Steele in shared memory (n <= blockDim.x <= 1024).
__global__ void scan_block(const float *in, float *out, int n) {
  __shared__ float temp[1024];
  int tid = threadIdx.x;
  temp[tid] = tid < n ? in[tid] : 0.0f;
  __syncthreads();
  for (int off = 1; off < blockDim.x; off *= 2) {
    float t = tid >= off ? temp[tid - off] : 0.0f;
    __syncthreads();
    temp[tid] += t;
    __syncthreads();
  }
  if (tid < n)
    out[tid] = temp[tid];
}

// The naive O(n^2) prefix sum: each thread sums the input up to its own
// element.
__global__ void scan_triangle(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float s = 0.0f;
    for (int j = 0; j <= i; ++j)
      s += in[j];
    out[i] = s;
  }
}

// The same, exclusive, over ints, with an early return.
__global__ void scan_triangle_excl(const int *x, int *y, int len) {
  const int t = threadIdx.x + blockIdx.x * blockDim.x;
  if (t >= len)
    return;
  int acc = 0;
  for (int k = 0; k < t; k++)
    acc += x[k];
  y[t] = acc;
}
