// Naive stencils in several spellings for the GPU check of
// smem-stencil-tiling: clamped borders (min/max, if/else), a zero-padded
// Laplacian in double, explicit 1D neighbours, a 3D 7-point stencil, a
// template radius, a row-only blur over an image and a batched 2D stencil.
__global__ void blur_minmax(const float *in, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  float s = 0.f;
  for (int dy = -1; dy <= 1; ++dy)
    for (int dx = -1; dx <= 1; ++dx) {
      int yy = min(max(y + dy, 0), h - 1);
      int xx = min(max(x + dx, 0), w - 1);
      s += in[yy * w + xx];
    }
  out[y * w + x] = s / 9.0f;
}

__global__ void blur_ifelse(const float *src, float *dst, int width, int height) {
  int col = threadIdx.x + blockDim.x * blockIdx.x;
  int row = threadIdx.y + blockDim.y * blockIdx.y;
  if (col < width && row < height) {
    float s = 0.f;
    for (int dy = -1; dy <= 1; ++dy) {
      for (int dx = -1; dx <= 1; ++dx) {
        int r = row + dy;
        int c = col + dx;
        if (r < 0) r = 0; else if (r > height - 1) r = height - 1;
        if (c < 0) c = 0; else if (c >= width) c = width - 1;
        s += src[r * width + c];
      }
    }
    dst[row * width + col] = s * (1.0f / 9.0f);
  }
}

__global__ void laplace5(const double *u, double *lap, int nx, int ny) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int j = blockIdx.y * blockDim.y + threadIdx.y;
  if (i < nx && j < ny) {
    double c = u[j * nx + i];
    double l = i > 0 ? u[j * nx + i - 1] : 0.0;
    double r = i < nx - 1 ? u[j * nx + i + 1] : 0.0;
    double d = j > 0 ? u[(j - 1) * nx + i] : 0.0;
    double t = j < ny - 1 ? u[(j + 1) * nx + i] : 0.0;
    lap[j * nx + i] = l + r + d + t - 4.0 * c;
  }
}

__global__ void st1d_r3(const float *in, float *out, int n) {
  int i = threadIdx.x + blockIdx.x * blockDim.x;
  if (i < 3 || i >= n - 3) return;
  out[i] = 0.1f * in[i - 3] + 0.2f * in[i - 2] + 0.3f * in[i - 1] + 0.4f * in[i] +
           0.3f * in[i + 1] + 0.2f * in[i + 2] + 0.1f * in[i + 3];
}

__global__ void heat3d(const float *a, float *b, int nx, int ny, int nz) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  int z = blockIdx.z * blockDim.z + threadIdx.z;
  if (x < 1 || y < 1 || z < 1 || x >= nx - 1 || y >= ny - 1 || z >= nz - 1) return;
  size_t id = ((size_t)z * ny + y) * nx + x;
  size_t sx = 1, sy = nx, sz = (size_t)nx * ny;
  b[id] = a[id] * -6.0f + a[id - sx] + a[id + sx] + a[id - sy] + a[id + sy] + a[id - sz] + a[id + sz];
}

template <int R>
__global__ void box1d(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float s = 0.f;
  for (int k = -R; k <= R; ++k) {
    int p = i + k;
    if (p >= 0 && p < n) s += in[p];
  }
  out[i] = s;
}
template __global__ void box1d<4>(const float *, float *, int);

__global__ void hblur(const float *in, float *out, int w, int h) {
  int x = threadIdx.x + blockIdx.x * blockDim.x;
  int y = threadIdx.y + blockIdx.y * blockDim.y;
  if (x < w && y < h) {
    float s = 0.f;
    for (int k = -3; k <= 3; ++k) {
      int xx = min(max(x + k, 0), w - 1);
      s += in[y * w + xx];
    }
    out[y * w + x] = s;
  }
}

__global__ void batched(const float *in, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  int b = blockIdx.z;
  if (x >= 1 && x < w - 1 && y >= 1 && y < h - 1) {
    const float *p = in + (size_t)b * w * h;
    out[(size_t)b * w * h + y * w + x] = p[(y - 1) * w + x] + p[(y + 1) * w + x] + p[y * w + x - 1] + p[y * w + x + 1];
  }
}

// One z-plane per block: z = blockIdx.z, no thread moves along z.
__global__ void plane3d(const float *in, float *out, int nx, int ny, int nz) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y,
      z = blockIdx.z;
  if (x < 1 || y < 1 || z < 1 || x >= nx - 1 || y >= ny - 1 || z >= nz - 1) return;
  size_t s = (size_t)nx * ny, id = z * s + y * nx + x;
  out[id] = in[id - 1] + in[id + 1] + in[id - nx] + in[id + nx] + in[id - s] + in[id + s] - 6 * in[id];
}
