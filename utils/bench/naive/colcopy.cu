// Copies a row-major rows x cols matrix into column-major order; threadIdx.x
// walks the rows, so the reads are strided and the writes contiguous.
__global__ void to_column_major(const double *src, double *dst, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  int c = blockIdx.y * blockDim.y + threadIdx.y;
  if (r < rows && c < cols)
    dst[(long)c * rows + r] = src[(long)r * cols + c];
}
