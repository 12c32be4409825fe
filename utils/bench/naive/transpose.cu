// Out-of-place transpose of a rows x cols row-major matrix, one element per
// thread, 2D launch.
__global__ void transpose_naive(float *out, const float *in, int rows, int cols) {
  int c = threadIdx.x + blockIdx.x * blockDim.x;
  int r = threadIdx.y + blockIdx.y * blockDim.y;
  if (r >= rows || c >= cols)
    return;
  out[(size_t)c * rows + r] = in[(size_t)r * cols + c];
}
