// Row softmax of any floating type, one thread per row, indices spelt with
// the row offset inline; launched as softmax_t<float>.
template <typename T>
__global__ void softmax_t(const T *x, T *y, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    T mx = x[r * cols];
    for (int c = 1; c < cols; c++) mx = max(mx, x[r * cols + c]);
    T sum = 0;
    for (int c = 0; c < cols; c++) sum += exp(x[r * cols + c] - mx);
    for (int c = 0; c < cols; c++) y[r * cols + c] = exp(x[r * cols + c] - mx) / sum;
  }
}
void run_softmax_t(const float *x, float *y, int rows, int cols) { softmax_t<float><<<(rows + 127) / 128, 128>>>(x, y, rows, cols); }
