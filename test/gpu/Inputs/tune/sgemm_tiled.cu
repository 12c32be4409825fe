// A tiled SGEMM for tuning: C = A * B for square N x N row-major matrices.
// A block computes a Tile x Tile tile of C with Tile x (Tile / Wpt)
// threads; each thread computes Wpt outputs of one column, staging Tile x
// Tile tiles of A and B in shared memory. The k loop runs in the same order
// for every configuration, so results are bit-identical across them.
template <int Tile, int Wpt>
__global__ void sgemm_tiled(const float *A, const float *B, float *C, int N) {
  __shared__ float As[Tile][Tile];
  __shared__ float Bs[Tile][Tile];
  constexpr int RTS = Tile / Wpt; // rows of threads
  int col = blockIdx.x * Tile + threadIdx.x;
  int row0 = blockIdx.y * Tile + threadIdx.y;
  float acc[Wpt];
#pragma unroll
  for (int w = 0; w < Wpt; ++w)
    acc[w] = 0.0f;
  for (int t = 0; t < N; t += Tile) {
#pragma unroll
    for (int w = 0; w < Wpt; ++w) {
      int r = threadIdx.y + w * RTS;
      As[r][threadIdx.x] = A[(blockIdx.y * Tile + r) * N + t + threadIdx.x];
      Bs[r][threadIdx.x] = B[(t + r) * N + col];
    }
    __syncthreads();
#pragma unroll
    for (int k = 0; k < Tile; ++k) {
      float b = Bs[k][threadIdx.x];
#pragma unroll
      for (int w = 0; w < Wpt; ++w)
        acc[w] += As[threadIdx.y + w * RTS][k] * b;
    }
    __syncthreads();
  }
#pragma unroll
  for (int w = 0; w < Wpt; ++w)
    C[(row0 + w * RTS) * N + col] = acc[w];
}

constexpr int TILE = 16;
constexpr int WPT = 1;

void launch(const float *A, const float *B, float *C, int N) {
  sgemm_tiled<TILE, WPT><<<dim3(N / TILE, N / TILE), dim3(TILE, TILE / WPT)>>>(A, B, C, N);
}
