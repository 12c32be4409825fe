// y = A x, one thread per row, the result written through a __device__ store
// helper and the row index from a __device__ function.
__device__ int row_id() { return blockIdx.x * blockDim.x + threadIdx.x; }
__device__ void store(float *p, int i, float v) { p[i] = v; }
__global__ void mv_store(const float *A, const float *x, float *y, int m, int n) {
  int row = row_id();
  if (row < m) {
    float acc = 0.0f;
    for (int j = 0; j < n; j++)
      acc += A[(size_t)row * n + j] * x[j];
    store(y, row, acc);
  }
}
void run_mv_store(const float *A, const float *x, float *y, int m, int n) { mv_store<<<(m + 127) / 128, 128>>>(A, x, y, m, n); }
