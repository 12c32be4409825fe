// A 5x5 mean over the interior of an image: an if on the thread's position
// around two offset loops.
__global__ void mean5(const float *img, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= 2 && x < w - 2 && y >= 2 && y < h - 2) {
    float acc = 0.f;
    for (int dy = -2; dy <= 2; ++dy)
      for (int dx = -2; dx <= 2; ++dx)
        acc += img[(y + dy) * w + x + dx];
    out[y * w + x] = acc * (1.f / 25.f);
  }
}
