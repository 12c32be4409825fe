// 2D stencils for the stencil-register-rows rule's GPU check
// (test/gpu/rules/stencil-register-rows.cu): clamped borders in two
// spellings, zero padding with a filter buffer (3x3 and 7x7), literal
// offsets with an interior guard, and a column stencil.
__global__ void box_blur3(const float *src, float *dst, int width, int height) {
  int px = blockIdx.x * blockDim.x + threadIdx.x;
  int py = blockIdx.y * blockDim.y + threadIdx.y;
  if (px < width && py < height) {
    float total = 0.0f;
    for (int oy = -1; oy <= 1; ++oy) {
      int sy = py + oy;
      if (sy < 0) sy = 0;
      if (sy > height - 1) sy = height - 1;
      for (int ox = -1; ox <= 1; ++ox) {
        int sx = min(max(px + ox, 0), width - 1);
        total += src[sy * width + sx];
      }
    }
    dst[py * width + px] = total * (1.0f / 9.0f);
  }
}

__global__ void blur_minmax(const float *in, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  float s = 0.f;
  for (int dy = -2; dy <= 2; ++dy)
    for (int dx = -1; dx <= 1; ++dx)
      s += in[min(max(y + dy, 0), h - 1) * w + min(max(x + dx, 0), w - 1)] * (dy + 3);
  out[y * w + x] = s;
}

__global__ void conv3_zero(const float *in, const float *f, float *out, int w, int h) {
  int x = threadIdx.x + blockDim.x * blockIdx.x;
  int y = threadIdx.y + blockDim.y * blockIdx.y;
  if (x < w && y < h) {
    float acc = 0.0f;
    for (int i = -1; i <= 1; ++i)
      for (int j = -1; j <= 1; ++j) {
        int yy = y + i, xx = x + j;
        if (yy >= 0 && yy < h && xx >= 0 && xx < w)
          acc += f[(i + 1) * 3 + (j + 1)] * in[yy * w + xx];
      }
    out[y * w + x] = acc;
  }
}

#define K7 7
#define R7 (K7 / 2)
__global__ void conv7_zero(const float *in, const float *f, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) {
    float acc = 0.0f;
    for (int i = -R7; i <= R7; ++i)
      for (int j = -R7; j <= R7; ++j) {
        int yy = y + i, xx = x + j;
        if (yy >= 0 && yy < h && xx >= 0 && xx < w)
          acc += f[(i + R7) * K7 + (j + R7)] * in[(size_t)yy * w + xx];
      }
    out[(size_t)y * w + x] = acc;
  }
}

__global__ void laplace5(const double *u, double *v, int nx, int ny) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int j = blockIdx.y * blockDim.y + threadIdx.y;
  if (i > 0 && i < nx - 1 && j > 0 && j < ny - 1)
    v[j * nx + i] = u[(j - 1) * nx + i] + u[(j + 1) * nx + i] + u[j * nx + i - 1] +
                    u[j * nx + i + 1] - 4.0 * u[j * nx + i];
}

__global__ void column5(const float *in, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) {
    float s = 0.f;
    for (int d = -2; d <= 2; ++d)
      s += in[min(max(y + d, 0), h - 1) * w + x];
    out[y * w + x] = s;
  }
}

#define SEP_R 3
__global__ void sep7(const float *in, const float *fx, const float *fy, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) {
    float acc = 0.0f;
    for (int i = -SEP_R; i <= SEP_R; ++i) {
      int yy = y + i;
      if (yy < 0 || yy >= h)
        continue;
      float row = 0.0f;
      for (int j = -SEP_R; j <= SEP_R; ++j) {
        int xx = x + j;
        if (xx >= 0 && xx < w)
          row += fx[j + SEP_R] * in[(size_t)yy * w + xx];
      }
      acc += fy[i + SEP_R] * row;
    }
    out[(size_t)y * w + x] = acc;
  }
}
