// 2D kernels whose lanes (threadIdx.x) walk the rows of row-major data.
__global__ void madd(const float *A, const float *B, float *C, int M, int N) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  int col = blockIdx.y * blockDim.y + threadIdx.y;
  if (row < M && col < N)
    C[row * N + col] = A[row * N + col] + B[row * N + col];
}

// A 3x3 box blur with clamped borders, x on the rows, size_t indices.
__global__ void blur_rows(const float *in, float *out, int h, int w) {
  int y = blockIdx.x * blockDim.x + threadIdx.x;
  int x = blockIdx.y * blockDim.y + threadIdx.y;
  if (y >= h || x >= w)
    return;
  float s = 0.0f;
  for (int dy = -1; dy <= 1; ++dy)
    for (int dx = -1; dx <= 1; ++dx) {
      int yy = min(max(y + dy, 0), h - 1);
      int xx = min(max(x + dx, 0), w - 1);
      s += in[(size_t)yy * w + xx];
    }
  out[(size_t)y * w + x] = s / 9.0f;
}
