// Transpose of any element type: the element type is a template parameter,
// launched as transpose_t<double>; int64_t offsets.
#include <cstdint>
template <typename T>
__global__ void transpose_t(T *dst, const T *src, int64_t height, int64_t width) {
  int64_t c = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  int64_t r = blockIdx.y * (int64_t)blockDim.y + threadIdx.y;
  if (c >= width || r >= height) return;
  dst[c * height + r] = src[r * width + c];
}
void run_transpose_t(double *dst, const double *src, int64_t h, int64_t w) {
  dim3 b(32, 32);
  transpose_t<double><<<dim3((w + 31) / 32, (h + 31) / 32), b>>>(dst, src, h, w);
}
