// Per-thread row scans, one thread per row (cooperative-row's row scans).

// Inclusive running sum (utils/bench/naive/row_cumsum.cu).
__global__ void row_cumsum(const float *in, float *out, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  float run = 0.f;
  for (int c = 0; c < cols; ++c) {
    run += in[(size_t)r * cols + c];
    out[(size_t)r * cols + c] = run;
  }
}

// Exclusive, with a bias as the start and the element loaded into a local.
__global__ void row_cumsum_excl(const float *in, const float *bias, float *out, int rows,
                                int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    float run = bias[r];
    for (int c = 0; c < cols; ++c) {
      float x = in[(size_t)r * cols + c];
      out[(size_t)r * cols + c] = run;
      run += x;
    }
  }
}

// Running maximum through row pointers.
__global__ void row_runmax(const float *in, float *out, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows)
    return;
  const float *p = in + (size_t)r * cols;
  float *q = out + (size_t)r * cols;
  float m = -1e30f;
  for (int c = 0; c < cols; ++c) {
    m = fmaxf(m, p[c]);
    q[c] = m;
  }
}

// Integers, the row's total kept after the loop.
__global__ void row_cumsum_int(const int *in, int *out, int *total, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows)
    return;
  int run = 0;
  for (int c = 0; c < cols; c++) {
    run = run + in[r * cols + c];
    out[r * cols + c] = run;
  }
  total[r] = run;
}

// A while loop: xor of unsigned values.
__global__ void row_xor_while(const unsigned *in, unsigned *out, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows)
    return;
  unsigned run = 0;
  int c = 0;
  while (c < cols) {
    run ^= in[r * cols + c];
    out[r * cols + c] = run;
    c++;
  }
}

// size_t indices: a running minimum of doubles (a ternary) and a running
// product.
__global__ void row_min_prod_f64(const double *in, double *lo, double *prod, size_t rows,
                                 size_t cols) {
  size_t r = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (r >= rows)
    return;
  double m = 1e300;
  for (size_t c = 0; c < cols; ++c) {
    m = in[r * cols + c] < m ? in[r * cols + c] : m;
    lo[r * cols + c] = m;
  }
  double p = 1.0;
  for (size_t c = 0; c < cols; ++c) {
    p *= in[r * cols + c];
    prod[r * cols + c] = p;
  }
}
