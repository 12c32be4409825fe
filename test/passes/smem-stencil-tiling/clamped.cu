// REQUIRES: cuda
// Clamped borders in three spellings: min/max, if/else assignments and
// nested ?: (double). The loader clamps each coordinate as the reads do
// (and loads nothing when the image is empty, where min(max()) and
// max(min()) differ and the original reads nothing).
// RUN: forge-port propose %s --kernel blur_minmax --block 16,16 --rules=smem-stencil-tiling --apply -o %t.minmax.cu
// RUN: FileCheck %s --check-prefix=MINMAX --match-full-lines --input-file=%t.minmax.cu
// RUN: %nvcc -arch=sm_90 -ptx %t.minmax.cu -o - | FileCheck %s --check-prefix=PTX
// RUN: forge-port propose %s --kernel blur_ifelse --block 32,8 --rules=smem-stencil-tiling --apply -o %t.ifelse.cu
// RUN: FileCheck %s --check-prefix=IFELSE --match-full-lines --input-file=%t.ifelse.cu
// RUN: %nvcc -arch=sm_90 -ptx %t.ifelse.cu -o - | FileCheck %s --check-prefix=PTX
// RUN: forge-port propose %s --kernel blur_ternary --block 16,16 --rules=smem-stencil-tiling --apply -o %t.ternary.cu
// RUN: FileCheck %s --check-prefix=TERNARY --match-full-lines --input-file=%t.ternary.cu
// RUN: %nvcc -arch=sm_90 -ptx %t.ternary.cu -o - | FileCheck %s --check-prefix=PTXD
// PTX: bar.sync
// PTX: ld.shared.f32
// PTXD: bar.sync
// PTXD: ld.shared.f64

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
// MINMAX:   if (blockDim.x != 16 || blockDim.y != 16 || blockDim.z != 1) {
// MINMAX:   __shared__ float in_tile[18][48];
// MINMAX:       long long e1 = 16 * (long long)blockIdx.y + t / 18 - 1;
// MINMAX-NEXT:       long long e0 = 16 * (long long)blockIdx.x + t % 18 - 1;
// MINMAX-NEXT:       long long e1c = e1 < 0 ? 0 : e1 > (long long)h - 1 ? (long long)h - 1 : e1;
// MINMAX-NEXT:       long long e0c = e0 < 0 ? 0 : e0 > (long long)w - 1 ? (long long)w - 1 : e0;
// MINMAX-NEXT:       in_v[k] = t < 324 && 0 <= (long long)h - 1 && 0 <= (long long)w - 1 ? in[e1c * w + e0c] : 0.0f;
// MINMAX:   __syncthreads();
// MINMAX:       s += in_tile[threadIdx.y + dy + 1][threadIdx.x + dx + 1];

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
// IFELSE:   if (blockDim.x != 32 || blockDim.y != 8 || blockDim.z != 1) {
// IFELSE:   __shared__ float src_tile[10][34];
// IFELSE:       long long e1 = 8 * (long long)blockIdx.y + t / 34 - 1;
// IFELSE-NEXT:       long long e0 = 32 * (long long)blockIdx.x + t % 34 - 1;
// IFELSE-NEXT:       long long e1c = e1 < 0 ? 0 : e1 > (long long)height - 1 ? (long long)height - 1 : e1;
// IFELSE-NEXT:       long long e0c = e0 < 0 ? 0 : e0 > (long long)width - 1 ? (long long)width - 1 : e0;
// IFELSE-NEXT:       src_v[k] = t < 340 && 0 <= (long long)height - 1 && 0 <= (long long)width - 1 ? src[e1c * width + e0c] : 0.0f;
// IFELSE:         s += src_tile[threadIdx.y + dy + 1][threadIdx.x + dx + 1];

__global__ void blur_ternary(const double *img, double *res, int W, int H) {
  int gx = blockIdx.x * blockDim.x + threadIdx.x;
  int gy = blockIdx.y * blockDim.y + threadIdx.y;
  if (gx >= W) return;
  if (gy >= H) return;
  double acc = 0;
  for (int j = -2; j <= 2; j++) {
    int yy = gy + j;
    yy = yy < 0 ? 0 : (yy >= H ? H - 1 : yy);
    for (int i = -2; i <= 2; i++) {
      int xx = gx + i;
      xx = xx < 0 ? 0 : (xx >= W ? W - 1 : xx);
      acc += img[yy * W + xx];
    }
  }
  res[gy * W + gx] = acc / 25.0;
}
// TERNARY:   __shared__ double img_tile[20][20];
// TERNARY:       long long e1c = e1 < 0 ? 0 : e1 > (long long)H - 1 ? (long long)H - 1 : e1;
// TERNARY-NEXT:       long long e0c = e0 < 0 ? 0 : e0 > (long long)W - 1 ? (long long)W - 1 : e0;
// TERNARY-NEXT:       img_v[k] = t < 400 && 0 <= (long long)H - 1 && 0 <= (long long)W - 1 ? img[e1c * W + e0c] : 0.0;
// TERNARY:       acc += img_tile[threadIdx.y + j + 2][threadIdx.x + i + 2];
