// Naive transposes over a 1D grid for the transpose-tile GPU check (flat
// index t = blockIdx.x * blockDim.x + threadIdx.x split into a row t / d and
// a column t % d): in is rows x cols, out is cols x rows.
//
// The classic one: coalesced reads, strided writes.
__global__ void transpose_flat(const float *in, float *out, int rows, int cols) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t < rows * cols) {
    int r = t / cols;
    int c = t % cols;
    out[c * rows + r] = in[t];
  }
}

// Doubles, size_t, the load written through the split and the names of the
// row and the column swapped, an early exit and a scale factor.
__global__ void transpose_flat_swapped(const double *in, double *out, double s, int rows,
                                       int cols) {
  size_t t = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (t >= (size_t)rows * cols)
    return;
  size_t c = t / cols, r = t % cols;
  out[r * rows + c] = s * in[c * cols + r];
}

// The store-coalesced variant: thread t writes out[t], element (t / rows,
// t % rows) of out, from in's column t / rows; 16-bit elements.
__global__ void transpose_flat_store(const short *in, short *out, int rows, int cols) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t < rows * cols) {
    int i = t / rows, j = t % rows;
    out[t] = in[j * cols + i];
  }
}

// A grid-stride loop over the flat index (any grid covers the matrix).
__global__ void transpose_flat_loop(const long long *in, long long *out, int rows, int cols) {
  for (int t = blockIdx.x * blockDim.x + threadIdx.x; t < rows * cols;
       t += blockDim.x * gridDim.x) {
    int r = t / cols, c = t % cols;
    out[c * rows + r] = in[t];
  }
}

// The flat index written with a constant block size: the thread's element
// only for 256-thread blocks (the rewrite checks blockDim.x and otherwise
// runs this body).
__global__ void transpose_flat256(const float *in, float *out, int rows, int cols) {
  int t = blockIdx.x * 256 + threadIdx.x;
  if (t < rows * cols) {
    int r = t / cols, c = t % cols;
    out[c * rows + r] = in[t];
  }
}
