// Kernels that accumulate straight into memory inside a loop (the
// accumulator-promotion rule's GPU test): a matrix product pre-zeroed
// before its loop, a matrix-vector product into a y the host pre-sets, a
// count under a condition the loop does not change with a break, a 3x3
// convolution under #pragma unroll, and a double dot product through locals
// whose running value is also read in the loop.
__global__ void acc_matmul(const float *A, const float *B, float *C, int M, int N, int K) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M && col < N) {
    C[row * N + col] = 0;
    for (int k = 0; k < K; k++)
      C[row * N + col] += A[row * K + k] * B[k * N + col];
  }
}

__global__ void acc_matvec(const float *A, const float *x, float *y, int m, int n) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < m) {
    for (int k = 0; k < n; ++k)
      y[row] += A[(size_t)row * n + k] * x[k];
  }
}

__global__ void acc_count(const int *v, int *count, int n, int len, int enabled, int stop) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  for (int k = 0; k < len; ++k) {
    if (enabled)
      count[i] += v[(size_t)k * n + i] > 0;
    if (v[(size_t)k * n + i] == stop)
      break;
  }
}

__global__ void acc_conv3x3(const float *in, const float *w, float *out, int width, int height) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= width - 2 || y >= height - 2) return;
  out[y * width + x] = 0.f;
#pragma unroll
  for (int dy = 0; dy < 3; ++dy)
#pragma unroll
    for (int dx = 0; dx < 3; ++dx)
      out[y * width + x] += w[dy * 3 + dx] * in[(y + dy) * width + x + dx];
}

__global__ void acc_dot(const double *a, const double *b, double *out, double *peak, int n,
                        int len) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  size_t base = (size_t)blockIdx.y * n;
  size_t idx = base + j;
  if (j < n) {
    out[idx] = 0.5;
    for (int k = 0; k < len; ++k) {
      out[idx] = out[idx] + a[((size_t)blockIdx.y * len + k) * n + j] * b[k];
      peak[idx] = fmax(peak[idx], out[idx]);
    }
  }
}
