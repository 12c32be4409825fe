// 2D convolution with the radius a kernel argument (PMPP ch. 7's basic
// kernel): the (2r+1) x (2r+1) filter in global memory, zero outside the
// image, one output per thread.
__global__ void conv2d_param(const float *N, const float *F, float *P, int r, int width,
                             int height) {
  int outCol = blockIdx.x * blockDim.x + threadIdx.x;
  int outRow = blockIdx.y * blockDim.y + threadIdx.y;
  float Pvalue = 0.0f;
  for (int fRow = 0; fRow < 2 * r + 1; fRow++) {
    for (int fCol = 0; fCol < 2 * r + 1; fCol++) {
      int inRow = outRow - r + fRow;
      int inCol = outCol - r + fCol;
      if (inRow >= 0 && inRow < height && inCol >= 0 && inCol < width)
        Pvalue += F[fRow * (2 * r + 1) + fCol] * N[inRow * width + inCol];
    }
  }
  if (outRow < height && outCol < width)
    P[outRow * width + outCol] = Pvalue;
}
