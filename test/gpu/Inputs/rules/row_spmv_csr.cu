// A CSR sparse matrix-vector product, one thread per row.
__global__ void row_spmv_csr(const int *rowptr, const int *col, const float *val,
                             const float *x, float *y, int m) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < m) {
    float dot = 0;
    for (int jj = rowptr[row]; jj < rowptr[row + 1]; jj++)
      dot += val[jj] * x[col[jj]];
    y[row] = dot;
  }
}
