// Transpose, PMPP style: `void __global__`, index macros with the row length
// as a macro argument, one guarded store.
#define IDX(r, c, ld) ((r) * (ld) + (c))
void __global__ transpose_idx(float *A, float *B, int N, int M) {
  int col = blockDim.x * blockIdx.x + threadIdx.x;
  int row = blockDim.y * blockIdx.y + threadIdx.y;
  if (row < N && col < M)
    B[IDX(col, row, N)] = A[IDX(row, col, M)];
}
void run_transpose_idx(float *A, float *B, int N, int M) {
  dim3 block(32, 8);
  dim3 grid((M + 31) / 32, (N + 7) / 8);
  transpose_idx<<<grid, block>>>(A, B, N, M);
}
