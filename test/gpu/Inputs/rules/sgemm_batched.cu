// Benchmark op: batched sgemm (first-round kernel).
// For each of `batch` problems b: C_b = A_b * B_b, all n x n, row-major,
// stored back to back (stride n * n elements), alpha 1, beta 0.
// One thread per element of C, 2D blocks (16 x 16 by default), the batch
// index in blockIdx.z. Compared with cublasSgemmStridedBatched.
__global__ void sgemm_batched(const float *A, const float *B, float *C, int n,
                              int batch) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int b = blockIdx.z;
  if (row < n && col < n && b < batch) {
    const float *a = A + (size_t)b * n * n;
    const float *bm = B + (size_t)b * n * n;
    float acc = 0.0f;
    for (int p = 0; p < n; ++p)
      acc += a[(size_t)row * n + p] * bm[(size_t)p * n + col];
    C[(size_t)b * n * n + (size_t)row * n + col] = acc;
  }
}

void launch_sgemm_batched(const float *A, const float *B, float *C, int n,
                          int batch) {
  // The spec's tunables: BLOCK threads in a BX x BLOCK / BX block.
  const int BLOCK = 256;
  const int BX = 16;
  dim3 block(BX, BLOCK / BX);
  dim3 grid((n + BX - 1) / BX, (n + BLOCK / BX - 1) / (BLOCK / BX), batch);
  sgemm_batched<<<grid, block>>>(A, B, C, n, batch);
}
