// Benchmark op: sgemm (first-round kernel).
// C = A * B, row-major, A is m x k, B is k x n, C is m x n (alpha 1,
// beta 0). One thread per element of C, a 2D grid of 2D blocks (16 x 16 by
// default), the dot product read straight from global memory.
// Specs: sgemm.json (2048^3) and sgemm_4096.json (4096^3).
__global__ void sgemm(const float *A, const float *B, float *C, int m, int n,
                      int k) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row < m && col < n) {
    float acc = 0.0f;
    for (int p = 0; p < k; ++p)
      acc += A[(size_t)row * k + p] * B[(size_t)p * n + col];
    C[(size_t)row * n + col] = acc;
  }
}

void launch_sgemm(const float *A, const float *B, float *C, int m, int n,
                  int k) {
  // The spec's tunables: BLOCK threads in a BX x BLOCK / BX block.
  const int BLOCK = 256;
  const int BX = 16;
  dim3 block(BX, BLOCK / BX);
  dim3 grid((n + BX - 1) / BX, (m + BLOCK / BX - 1) / (BLOCK / BX));
  sgemm<<<grid, block>>>(A, B, C, m, n, k);
}
