// Naive histograms for the histogram-privatize GPU test: one global atomic
// per element, bounded bins (by type, mask, min, modulo and guard).

__global__ void histogram256(const unsigned char *data, unsigned int *bins, long long count) {
  long long idx = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  long long step = (long long)blockDim.x * gridDim.x;
  while (idx < count) {
    atomicAdd(&bins[data[idx]], 1u);
    idx += step;
  }
}

__global__ void hist_mod(const unsigned *data, unsigned *bins, int nbins, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    atomicAdd(&bins[data[i] % nbins], 1u);
}

void launch_mod(const unsigned *d, unsigned *b, int nb, int n, int block) {
  hist_mod<<<(n + block - 1) / block, block>>>(d, b, nb, n);
}

__global__ void clamped(const unsigned *v, unsigned long long *h, int n) {
  int i = threadIdx.x + blockIdx.x * blockDim.x;
  if (i >= n) return;
  unsigned k = min(v[i], 63u);
  atomicAdd(h + k, 1ull);
}

__global__ void weighted(const int *key, const float *w, float *h, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicAdd(&h[key[i] & 127], w[i]);
}

__global__ void image(const unsigned char *img, unsigned *hist, int width, int height, int pitch) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < width && y < height)
    atomicAdd(&hist[img[y * pitch + x]], 1u);
}

__global__ void maxbin(const int *key, const int *val, int *m, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    int b = key[i];
    if (b >= 0 && b < 200)
      atomicMax(&m[b], val[i]);
  }
}

__global__ void orbits(const unsigned *key, int *flags, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    atomicOr(&flags[key[i] >> 24], 1 << (key[i] & 31));
}

// The 16-byte path's styles: one byte per thread under a guard, 16-bit keys
// after an early exit, byte keys with float weights.
__global__ void bytes1(const unsigned char *in, unsigned int *hist, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicAdd(&hist[in[i]], 1u);
}

__global__ void keys16(const unsigned short *keys, unsigned int *bins, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  unsigned short k = keys[i];
  atomicAdd(&bins[k >> 6], 1u);
}

__global__ void wbytes(const unsigned char *key, const float *w, float *h, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicAdd(&h[key[i] % 200], w[i]);
}

// Bins bounded by their value range (Analysis/ValueRange.h): a float binned
// and clamped by two ifs, letters under a guard on the byte, and a joint
// histogram of two byte images.
__global__ void ifclamp(const float *x, unsigned *h, int n, float lo, float hi) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int b = (int)((x[i] - lo) / (hi - lo) * 64);
  if (b < 0) b = 0;
  if (b > 63) b = 63;
  atomicAdd(h + b, 1u);
}

__global__ void letters(const char *text, unsigned *freq, size_t len) {
  size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (i < len) {
    unsigned char c = text[i];
    if (c >= 'a' && c <= 'z')
      atomicAdd(&freq[c - 'a'], 1u);
  }
}

__global__ void joint(const unsigned char *a, const unsigned char *b, unsigned *j, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    atomicAdd(&j[(a[i] >> 4) * 16 + (b[i] >> 4)], 1u);
}

// The index computed before the guard, 16-bit pixels, the exit form.
__global__ void image16(const unsigned short *img, unsigned *hist, int width, int height, int pitch) {
  const int x = threadIdx.x + blockIdx.x * blockDim.x;
  const int y = threadIdx.y + blockIdx.y * blockDim.y;
  const size_t at = (size_t)y * pitch + x;
  if (x >= width || y >= height) return;
  atomicAdd(&hist[img[at] >> 8], 1u);
}
