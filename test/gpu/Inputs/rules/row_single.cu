// Rows walked by one thread of a block (cooperative-row's single-thread
// shape): a sum under `if (threadIdx.x == 0)`, a sum after an early return
// with a row bound, a max through a thread-index local, an argmax, a
// matrix-vector row through a row pointer on a 2D grid, and rows of a
// pitched array.
#include <cstddef>
#include <cmath>

__global__ void single_sum(const float *a, float *out, int n) {
  int row = blockIdx.x;
  if (threadIdx.x == 0) {
    float s = 0;
    for (int k = 0; k < n; ++k)
      s += a[(size_t)row * n + k];
    out[row] = s;
  }
}

__global__ void single_early(const float *a, float *out, int m, int n) {
  if (threadIdx.x != 0)
    return;
  int row = blockIdx.x;
  if (row >= m)
    return;
  float s = 1.0f;
  for (int k = 0; k < n; ++k)
    s += a[(size_t)row * n + k];
  out[row] = s;
}

__global__ void single_max(const float *a, float *out, int m, int n) {
  int tid = threadIdx.x;
  int row = blockIdx.x;
  if (row >= m)
    return;
  if (tid == 0) {
    float best = -INFINITY;
    for (int k = 0; k < n; k++)
      best = fmaxf(best, a[(size_t)row * n + k]);
    out[row] = best;
  }
}

__global__ void single_argmax(const float *a, int *idx, int m, int n) {
  int row = blockIdx.x;
  if (row < m && threadIdx.x == 0) {
    float best = -INFINITY;
    int at = -1;
    for (int k = 0; k < n; ++k) {
      float v = a[(size_t)row * n + k];
      if (v > best) {
        best = v;
        at = k;
      }
    }
    idx[row] = at;
  }
}

__global__ void single_matvec(const float *A, const float *x, float *y, int m, int n) {
  int row = blockIdx.y * gridDim.x + blockIdx.x;
  if (row < m && threadIdx.x == 0) {
    const float *r = A + (size_t)row * n;
    float acc = 0.0f;
    for (int k = 0; k < n; ++k)
      acc += r[k] * x[k];
    y[row] = acc;
  }
}

__global__ void single_pitched(const float *a, size_t pitch, float *out, int m, int n) {
  int row = blockIdx.x;
  if (row >= m || threadIdx.x > 0)
    return;
  const float *r = (const float *)((const char *)a + row * pitch);
  float s = 0;
  for (int k = 0; k < n; ++k)
    s += r[k];
  out[row] = s;
}
