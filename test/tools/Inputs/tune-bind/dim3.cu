// The block of a 2D launch as dim3 literals: a variable constructed with
// (), one with {}, and dim3(...) in the chevrons; the grids repeat the
// block's extents (16 and 15) and follow them.
__global__ void transpose(const float *in, float *out, int rows, int cols) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < cols && y < rows)
    out[x * rows + y] = in[y * cols + x];
}

void parens(const float *in, float *out, int rows, int cols) {
  dim3 block(16, 16);
  dim3 grid((cols + 15) / 16, (rows + 15) / 16);
  transpose<<<grid, block>>>(in, out, rows, cols);
}

void braces(const float *in, float *out, int rows, int cols) {
  dim3 b{16, 16};
  transpose<<<dim3((cols + 15) / 16, (rows + 15) / 16), b>>>(in, out, rows, cols);
}

void inline_dim3(const float *in, float *out, int rows, int cols) {
  transpose<<<dim3((cols + 16 - 1) / 16, (rows + 16 - 1) / 16), dim3(16, 16)>>>(in, out, rows,
                                                                               cols);
}
