// Sum of squares, a grid-stride loop with size_t indices and one atomic per element.
__global__ void sum_squares(const float *__restrict__ v, size_t n, float *total) {
  size_t stride = (size_t)gridDim.x * blockDim.x;
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    float x = v[i];
    atomicAdd(total, x * x);
  }
}
