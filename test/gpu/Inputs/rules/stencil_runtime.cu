// Stencils whose radius or mask width is a kernel parameter, for the GPU
// check of smem-stencil-tiling's run-time radius (test/gpu/rules/
// smem-stencil-runtime.cu): PMPP's basic 2D convolution ('r = mw / 2', the
// mask in global memory), a box filter over '-r..r' with clamped reads,
// PMPP's 1D convolution, and a 2D convolution given its radius, the mask
// width '2 * r + 1' and every pointer __restrict__.

// PMPP's basic 2D convolution, the mask in global memory.
__global__ void conv2d_basic(const float *img, const float *mask, float *out, int w, int h, int mw) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (col < w && row < h) {
    int r = mw / 2;
    float acc = 0.0f;
    for (int i = 0; i < mw; i++)
      for (int j = 0; j < mw; j++) {
        int y = row - r + i, x = col - r + j;
        if (y >= 0 && y < h && x >= 0 && x < w)
          acc += img[y * w + x] * mask[i * mw + j];
      }
    out[row * w + col] = acc;
  }
}

// A box filter of radius r, clamped reads.
__global__ void box_r(const float *in, float *out, int nx, int ny, int r) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= nx || y >= ny)
    return;
  float s = 0.0f;
  for (int dy = -r; dy <= r; ++dy)
    for (int dx = -r; dx <= r; ++dx) {
      int yy = min(max(y + dy, 0), ny - 1);
      int xx = min(max(x + dx, 0), nx - 1);
      s += in[yy * nx + xx];
    }
  out[y * nx + x] = s;
}

// PMPP's 1D convolution: zero outside the array.
__global__ void conv1d(const float *N, const float *M, float *P, int mask_width, int width) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float Pvalue = 0;
  int start = i - mask_width / 2;
  for (int j = 0; j < mask_width; j++)
    if (start + j >= 0 && start + j < width)
      Pvalue += N[start + j] * M[j];
  if (i < width)
    P[i] = Pvalue;
}

// A 2D convolution given its radius: the mask is (2 r + 1) x (2 r + 1),
// the filter first in each product, an early exit.
__global__ void conv2d_radius(const float *__restrict__ in, const float *__restrict__ mask,
                              float *__restrict__ out, int w, int h, int r) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h)
    return;
  const int mw = 2 * r + 1;
  float acc = 0.0f;
  for (int i = 0; i < mw; ++i)
    for (int j = 0; j < mw; ++j) {
      int yy = y + i - r, xx = x + j - r;
      if (yy >= 0 && yy < h && xx >= 0 && xx < w)
        acc += mask[i * mw + j] * in[yy * w + xx];
    }
  out[y * w + x] = acc;
}
