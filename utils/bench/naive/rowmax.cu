#include <math.h>
// Largest element of each row, one thread per row.
__global__ void row_max(const float *A, float *out, int rows, int cols) {
  int r = threadIdx.x + blockIdx.x * blockDim.x;
  if (r >= rows) return;
  const float *row = A + (size_t)r * cols;
  float m = -INFINITY;
  for (int c = 0; c < cols; c++)
    m = fmaxf(m, row[c]);
  out[r] = m;
}
