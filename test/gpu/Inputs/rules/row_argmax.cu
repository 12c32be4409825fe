// The position of the largest element of each row (the first of equal
// ones; -1 when no element beats -INFINITY, e.g. a row of NaNs), one thread
// per row.
__global__ void row_argmax(const float *in, int *out, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows)
    return;
  float best = -INFINITY;
  int at = -1;
  for (int c = 0; c < cols; ++c) {
    float v = in[(size_t)r * cols + c];
    if (v > best) {
      best = v;
      at = c;
    }
  }
  out[r] = at;
}

// The smallest element of each row and its position, starting from the
// first element, through a row pointer; a 64-bit position.
__global__ void row_argmin_u32(const unsigned *in, unsigned *low, long long *pos, int rows,
                               int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows)
    return;
  const unsigned *p = in + (size_t)r * cols;
  unsigned lo = p[0];
  long long where = 0;
  for (int c = 1; c < cols; c++)
    if (p[c] < lo) {
      lo = p[c];
      where = c;
    }
  low[r] = lo;
  pos[r] = where;
}
