// Per-thread chunks for the coalesced-remap GPU check: 8 floats per thread
// with a guard per element, 4 doubles per thread over `min(n, start + 4)`,
// and 16 ints per thread through a loop over the thread's own range.
__global__ void scale8(const float *in, float *out, float a, int n) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  int base = t * 8;
  for (int k = 0; k < 8; ++k) {
    int i = base + k;
    if (i < n)
      out[i] = a * in[i] + 1.0f;
  }
}

__global__ void sqrt4(const double *__restrict__ a, double *__restrict__ b, size_t n) {
  size_t tid = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  size_t start = tid * 4;
  size_t end = min(n, start + 4);
  for (size_t i = start; i < end; i++)
    b[i] = sqrt(a[i]) + 1.0;
}

__global__ void triple16(const int *in, int *out, int n) {
  int t = threadIdx.x + blockIdx.x * blockDim.x;
  if (t * 16 >= n) return;
  for (int j = t * 16; j < t * 16 + 16 && j < n; ++j)
    out[j] = 3 * in[j] - 1;
}
