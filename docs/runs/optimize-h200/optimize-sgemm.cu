// Benchmark op: sgemm (first-round kernel).
// C = A * B, row-major, A is m x k, B is k x n, C is m x n (alpha 1,
// beta 0). One thread per element of C, a 2D grid of 2D blocks (16 x 16 by
// default), the dot product read straight from global memory.
// Specs: sgemm.json (2048^3) and sgemm_4096.json (4096^3).
__global__ void sgemm(const float *A, const float *B, float *C, int m, int n,
                      int k) {
  int col = blockIdx.x * 128 + threadIdx.x;
  int row = blockIdx.y * 128 + threadIdx.y;
  // register-tiling: a 128 x 128 tile of C per block, 8 x 8 outputs per thread
  // (rows 16 apart, columns 16 apart); A and B pass through shared memory 16 at a time.
  __shared__ float rt_As[128][16];
  __shared__ float rt_Bs[16][128];
  float rt_acc[8][8];
#pragma unroll
  for (int rt_i = 0; rt_i < 8; ++rt_i)
#pragma unroll
    for (int rt_j = 0; rt_j < 8; ++rt_j)
      rt_acc[rt_i][rt_j] = 0.0f;
  for (int rt_k0 = 0; rt_k0 < k; rt_k0 += 16) {
    for (int rt_t = threadIdx.y * 16 + threadIdx.x; rt_t < 2048; rt_t += 256) {
      int rt_i = rt_t / 16, rt_kk = rt_t % 16;
      int rt_row = blockIdx.y * 128 + rt_i;
      int rt_p = rt_k0 + rt_kk;
      rt_As[rt_i][rt_kk] = rt_row < m && rt_p < k ? A[(size_t)rt_row * k + rt_p] : 0.0f;
    }
    for (int rt_t = threadIdx.y * 16 + threadIdx.x; rt_t < 2048; rt_t += 256) {
      int rt_kk = rt_t / 128, rt_j = rt_t % 128;
      int rt_col = blockIdx.x * 128 + rt_j;
      int rt_p = rt_k0 + rt_kk;
      rt_Bs[rt_kk][rt_j] = rt_p < k && rt_col < n ? B[(size_t)rt_p * n + rt_col] : 0.0f;
    }
    __syncthreads();
#pragma unroll
    for (int rt_kk = 0; rt_kk < 16; ++rt_kk) {
      float rt_a[8], rt_b[8];
#pragma unroll
      for (int rt_i = 0; rt_i < 8; ++rt_i)
        rt_a[rt_i] = rt_As[threadIdx.y + rt_i * 16][rt_kk];
#pragma unroll
      for (int rt_j = 0; rt_j < 8; ++rt_j)
        rt_b[rt_j] = rt_Bs[rt_kk][threadIdx.x + rt_j * 16];
#pragma unroll
      for (int rt_i = 0; rt_i < 8; ++rt_i)
#pragma unroll
        for (int rt_j = 0; rt_j < 8; ++rt_j)
          rt_acc[rt_i][rt_j] += rt_a[rt_i] * rt_b[rt_j];
    }
    __syncthreads();
  }
#pragma unroll
  for (int rt_i = 0; rt_i < 8; ++rt_i)
#pragma unroll
    for (int rt_j = 0; rt_j < 8; ++rt_j) {
      int rt_row = row + rt_i * 16;
      int rt_col = col + rt_j * 16;
      if (rt_row < m && rt_col < n)
        C[(size_t)rt_row * n + rt_col] = rt_acc[rt_i][rt_j];
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
