// Elementwise maps in the spellings vectorize and grid-stride rewrite, one
// thread per element: an if-guard, an early exit, an early exit with a
// per-element mask, a compound guard on the element, the index through
// locals (double), arithmetic on the index, and size_t with int elements.
#include <cstddef>

__global__ void triad(float *a, const float *b, const float *c, float s, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    a[i] = b[i] + s * c[i];
  }
}

__global__ void axpy_exit(const float *x, float *y, float alpha, int n) {
  int i = threadIdx.x + blockDim.x * blockIdx.x;
  if (i >= n) return;
  float v = x[i];
  y[i] = alpha * v + y[i];
}

__global__ void masked_copy(const float *x, float *y, const int *mask, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n || mask[i] == 0)
    return;
  y[i] = x[i];
}

__global__ void relu_pos(const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && x[i] > 0.f) y[i] = x[i];
}

__global__ void scale_double(const double *x, double *y, double a, int n) {
  int tid = threadIdx.x;
  int gid = blockIdx.x * blockDim.x + tid;
  const double twice = 2.0 * a;
  if (gid < n) {
    y[gid] = twice * x[gid];
  }
}

__global__ void hash_index(unsigned *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = (i * 2654435761u) ^ (i - 5u);
}

__global__ void add_one(const int *x, int *y, size_t n) {
  const size_t idx = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (idx >= n) { return; }
  y[idx] = x[idx] + 1;
}
