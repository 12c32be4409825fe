// Benchmark op: 2D convolution with a 5x5 filter (first-round kernel).
// out[y][x] = sum_{i,j in -2..2} f[(i + 2) * 5 + (j + 2)] * in[y + i][x + j]
// on an h x w row-major image, with in taken as 0 outside the image (zero
// padding); the filter is an input buffer (a correlation, as in deep
// learning: the filter is not flipped). One thread per output pixel, 2D
// blocks (16 x 16 by default), every tap read straight from global memory.
#define CONV_K 5
#define CONV_R (CONV_K / 2)

__global__ void conv2d_5x5(const float *in, const float *filt, float *out,
                             int h, int w) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) {
    float acc = 0.0f;
    for (int i = -CONV_R; i <= CONV_R; ++i) {
      for (int j = -CONV_R; j <= CONV_R; ++j) {
        int yy = y + i, xx = x + j;
        if (yy >= 0 && yy < h && xx >= 0 && xx < w)
          acc += filt[(i + CONV_R) * CONV_K + (j + CONV_R)] *
                 in[(size_t)yy * w + xx];
      }
    }
    out[(size_t)y * w + x] = acc;
  }
}

void launch_conv2d_5x5(const float *in, const float *filt, float *out,
                          int h, int w) {
  // The spec's tunables: BLOCK threads in a BX x BLOCK / BX block.
  const int BLOCK = 256;
  const int BX = 32;
  dim3 block(BX, BLOCK / BX);
  dim3 grid((w + BX - 1) / BX, (h + BLOCK / BX - 1) / (BLOCK / BX));
  conv2d_5x5<<<grid, block>>>(in, filt, out, h, w);
}
