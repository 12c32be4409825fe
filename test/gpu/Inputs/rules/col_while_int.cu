// An integer column xor and min walked by a while loop.
__global__ void col_while_int(const unsigned *a, unsigned *x, unsigned *mn, int rows, int cols) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= cols)
    return;
  unsigned h = 0, m = 0xffffffffu;
  int r = 0;
  while (r < rows) {
    unsigned v = a[r * cols + j];
    h ^= v;
    m = v < m ? v : m;
    r++;
  }
  x[j] = h;
  mn[j] = m;
}
inline void col_while_int_example(const unsigned *a, unsigned *x, unsigned *mn) {
  col_while_int<<<16, 256>>>(a, x, mn, 16384, 4096);
}
