// Naive transposes for the transpose-tile GPU check: a float matrix of
// rows x cols into cols x rows, and a double one written with swapped
// roles (strided reads, coalesced writes), size_t indices and early exits.
__global__ void transpose(const float *in, float *out, int rows, int cols) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < cols && y < rows)
    out[x * rows + y] = in[y * cols + x];
}

__global__ void transpose_scaled(const double *a, double *b, double s, int n, int m) {
  unsigned i = threadIdx.x + blockDim.x * blockIdx.x;
  unsigned j = threadIdx.y + blockDim.y * blockIdx.y;
  if (i >= n) return;
  if (j >= m) return;
  b[(size_t)j * n + i] = s * a[(size_t)i * m + j];
}

// Positions written with the tile's width: the thread's position only for
// 16 x 16 blocks (the rewrite checks blockDim and otherwise runs this body).
#define TRANSPOSE_TILE 16
__global__ void transpose16(const float *in, float *out, int rows, int cols) {
  int x = blockIdx.x * TRANSPOSE_TILE + threadIdx.x;
  int y = blockIdx.y * TRANSPOSE_TILE + threadIdx.y;
  if (x < cols && y < rows)
    out[x * rows + y] = in[y * cols + x];
}
