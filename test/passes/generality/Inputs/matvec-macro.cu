// y = A x, one thread per row, the element addressed through a macro.
#define A_AT(r, c) A[(r) * n + (c)]
__global__ void mv_macro(const float *A, const float *x, float *y, int m, int n) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= m) return;
  float acc = 0.0f;
  for (int j = 0; j < n; ++j)
    acc += A_AT(row, j) * x[j];
  y[row] = acc;
}
void run_mv_macro(const float *A, const float *x, float *y, int m, int n) { mv_macro<<<(m + 127) / 128, 128>>>(A, x, y, m, n); }
