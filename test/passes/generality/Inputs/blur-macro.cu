// 3x3 clamped box blur, the pixel read through a macro with min/max clamps.
#define PIX(xx, yy) img[min(max((yy), 0), h - 1) * w + min(max((xx), 0), w - 1)]
__global__ void blur_macro(const float *img, float *res, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) {
    float s = 0.0f;
    for (int dy = -1; dy <= 1; ++dy)
      for (int dx = -1; dx <= 1; ++dx)
        s += PIX(x + dx, y + dy);
    res[y * w + x] = s * (1.0f / 9.0f);
  }
}
void run_blur_macro(const float *img, float *res, int w, int h) {
  blur_macro<<<dim3((w + 15) / 16, (h + 15) / 16), dim3(16, 16)>>>(img, res, w, h);
}
