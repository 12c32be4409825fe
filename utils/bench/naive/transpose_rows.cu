#define TILE_DIM 32
#define BLOCK_ROWS 8
__global__ void transposeNaive(float *odata, const float *idata) {
  int x = blockIdx.x * TILE_DIM + threadIdx.x;
  int y = blockIdx.y * TILE_DIM + threadIdx.y;
  int width = gridDim.x * TILE_DIM;
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
    odata[x*width + (y+j)] = idata[(y+j)*width + x];
}
__global__ void tWH(float *out, const float *in, int w, int h) {
  int x = blockIdx.x * TILE_DIM + threadIdx.x;
  int y = blockIdx.y * TILE_DIM + threadIdx.y;
  for (int j = 0; j < TILE_DIM; j += blockDim.y)
    if (x < w && y + j < h)
      out[x*h + (y+j)] = in[(y+j)*w + x];
}
__global__ void tB(float *out, const float *in, int w, int h) {
  int x = blockIdx.x * TILE_DIM + threadIdx.x;
  for (int r = threadIdx.y; r < TILE_DIM; r += BLOCK_ROWS) {
    int y = blockIdx.y * TILE_DIM + r;
    if (x < w && y < h)
      out[x*h + y] = in[y*w + x];
  }
}
