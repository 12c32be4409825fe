// 3x3 clamped box blur written out: clamped neighbour coordinates held in
// locals, nine explicit terms.
__global__ void blur9(const float *src, float *dst, int width, int height) {
  const int x = threadIdx.x + blockIdx.x * blockDim.x;
  const int y = threadIdx.y + blockIdx.y * blockDim.y;
  if (x >= width || y >= height) return;
  const int xl = x > 0 ? x - 1 : 0, xr = x < width - 1 ? x + 1 : width - 1;
  const int yu = y > 0 ? y - 1 : 0, yd = y < height - 1 ? y + 1 : height - 1;
  float s = src[yu * width + xl] + src[yu * width + x] + src[yu * width + xr]
          + src[y * width + xl] + src[y * width + x] + src[y * width + xr]
          + src[yd * width + xl] + src[yd * width + x] + src[yd * width + xr];
  dst[y * width + x] = s / 9.0f;
}
void run_blur9(const float *s, float *d, int w, int h) {
  blur9<<<dim3((w + 15) / 16, (h + 15) / 16), dim3(16, 16)>>>(s, d, w, h);
}
