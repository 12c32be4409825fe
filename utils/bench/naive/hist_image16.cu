// 256-level histogram of a 16-bit image with a pitch in elements; the
// index is computed before the bounds test (exit form).
__global__ void levels16(const unsigned short *img, unsigned *hist, int w, int h, int stride) {
  const int x = threadIdx.x + blockIdx.x * blockDim.x;
  const int y = threadIdx.y + blockIdx.y * blockDim.y;
  const size_t idx = (size_t)y * stride + x;
  if (x >= w || y >= h) return;
  atomicAdd(&hist[img[idx] >> 8], 1u);
}
