// C = alpha * A * B^T + beta * C in double precision, B stored as n x k
// (row-major B^T), with an early return for threads outside C.
__global__ void dgemm_nt(int m, int n, int k, double alpha, const double *A,
                         const double *Bt, double beta, double *C) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= m || col >= n)
    return;
  double acc = 0.0;
  for (int p = 0; p < k; p++)
    acc = acc + A[row * k + p] * Bt[col * k + p];
  C[row * n + col] = alpha * acc + beta * C[row * n + col];
}
