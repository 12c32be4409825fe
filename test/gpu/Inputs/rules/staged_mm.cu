// Shared-memory tiled matrix products for test/gpu/rules/register-tiling-staged.cu:
// PMPP's kernel (no bounds checks, K truncated to whole tiles), the
// bounds-checked variant and a rectangular one.
#define TILE_WIDTH 16

// PMPP's kernel: no bounds checks, the K loop covers (Width / 16) * 16.
__global__ void pmpp(const float *M, const float *N, float *P, int Width) {
  __shared__ float Mds[TILE_WIDTH][TILE_WIDTH];
  __shared__ float Nds[TILE_WIDTH][TILE_WIDTH];
  int bx = blockIdx.x, by = blockIdx.y, tx = threadIdx.x, ty = threadIdx.y;
  int Row = by * TILE_WIDTH + ty, Col = bx * TILE_WIDTH + tx;
  float Pvalue = 0;
  for (int ph = 0; ph < Width / TILE_WIDTH; ++ph) {
    Mds[ty][tx] = M[Row * Width + ph * TILE_WIDTH + tx];
    Nds[ty][tx] = N[(ph * TILE_WIDTH + ty) * Width + Col];
    __syncthreads();
    for (int k = 0; k < TILE_WIDTH; ++k)
      Pvalue += Mds[ty][k] * Nds[k][tx];
    __syncthreads();
  }
  P[Row * Width + Col] = Pvalue;
}

// With bounds checks: every size, the partial last tile zero-filled.
__global__ void pmpp_checked(const float *M, const float *N, float *P, int Width) {
  __shared__ float Mds[TILE_WIDTH][TILE_WIDTH];
  __shared__ float Nds[TILE_WIDTH][TILE_WIDTH];
  int tx = threadIdx.x, ty = threadIdx.y;
  int Row = blockIdx.y * TILE_WIDTH + ty, Col = blockIdx.x * TILE_WIDTH + tx;
  float Pvalue = 0;
  for (int ph = 0; ph < (Width + TILE_WIDTH - 1) / TILE_WIDTH; ++ph) {
    Mds[ty][tx] = (Row < Width && ph * TILE_WIDTH + tx < Width) ? M[Row * Width + ph * TILE_WIDTH + tx] : 0;
    Nds[ty][tx] = (ph * TILE_WIDTH + ty < Width && Col < Width) ? N[(ph * TILE_WIDTH + ty) * Width + Col] : 0;
    __syncthreads();
    for (int k = 0; k < TILE_WIDTH; ++k)
      Pvalue += Mds[ty][k] * Nds[k][tx];
    __syncthreads();
  }
  if (Row < Width && Col < Width)
    P[Row * Width + Col] = Pvalue;
}

// Rectangular: C (m x n) = A (m x k) * B (k x n).
__global__ void rect(const float *A, const float *B, float *C, int m, int n, int k) {
  __shared__ float As[TILE_WIDTH][TILE_WIDTH];
  __shared__ float Bs[TILE_WIDTH][TILE_WIDTH];
  int row = blockIdx.y * TILE_WIDTH + threadIdx.y;
  int col = blockIdx.x * TILE_WIDTH + threadIdx.x;
  float acc = 0.0f;
  for (int t = 0; t < (k + TILE_WIDTH - 1) / TILE_WIDTH; ++t) {
    As[threadIdx.y][threadIdx.x] = (row < m && t * TILE_WIDTH + threadIdx.x < k) ? A[row * k + t * TILE_WIDTH + threadIdx.x] : 0.0f;
    Bs[threadIdx.y][threadIdx.x] = (t * TILE_WIDTH + threadIdx.y < k && col < n) ? B[(t * TILE_WIDTH + threadIdx.y) * n + col] : 0.0f;
    __syncthreads();
    for (int p = 0; p < TILE_WIDTH; ++p)
      acc += As[threadIdx.y][p] * Bs[p][threadIdx.x];
    __syncthreads();
  }
  if (row < m && col < n)
    C[row * n + col] = acc;
}
