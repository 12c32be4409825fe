// Mean of each column of a row-major matrix, one thread per column: the
// loads are coalesced (neighbouring threads, neighbouring columns) but
// there are only as many threads as columns.
__global__ void col_mean(const float *data, float *mean, int n_rows, int n_cols) {
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (col < n_cols) {
    float acc = 0.0f;
    const float *p = data + col;
    for (int r = 0; r < n_rows; ++r) {
      acc += *p;
      p += n_cols;
    }
    mean[col] = acc / n_rows;
  }
}
