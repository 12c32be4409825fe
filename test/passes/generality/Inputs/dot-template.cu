// Dot product of any element type, launched as dot_t<double>.
template <typename T>
__global__ void dot_t(const T *a, const T *b, T *result, int n) {
  const int i = threadIdx.x + blockIdx.x * blockDim.x;
  if (i < n) {
    T prod = a[i] * b[i];
    atomicAdd(result, prod);
  }
}
void run_dot_t(const double *a, const double *b, double *r, int n) {
  dot_t<double><<<(n + 255) / 256, 256>>>(a, b, r, n);
}
