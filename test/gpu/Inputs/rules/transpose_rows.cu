// Naive transposes whose blocks walk the rows of a 32 x 32 tile in a loop
// (NVIDIA's "An Efficient Matrix Transpose in CUDA C/C++"), for the
// transpose-tile GPU check. transposeNaive is the blog's kernel: no guard,
// a square matrix whose width is the grid's (gridDim.x * 32), launched with
// grid (n / 32, n / 32) and block (32, 8). The others have their own sizes
// and a bound check inside the loop, and other loop spellings.
#define TILE_DIM 32
#define BLOCK_ROWS 8

__global__ void transposeNaive(float *odata, const float *idata) {
  int x = blockIdx.x * TILE_DIM + threadIdx.x;
  int y = blockIdx.y * TILE_DIM + threadIdx.y;
  int width = gridDim.x * TILE_DIM;
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
    odata[x * width + (y + j)] = idata[(y + j) * width + x];
}

// in: h x w, out: w x h; a step of blockDim.y (the tile's rows must be a
// multiple of it).
__global__ void transposeRowsWH(float *out, const float *in, int w, int h) {
  int x = blockIdx.x * TILE_DIM + threadIdx.x;
  int y = blockIdx.y * TILE_DIM + threadIdx.y;
  for (int j = 0; j < TILE_DIM; j += blockDim.y)
    if (x < w && y + j < h)
      out[x * h + (y + j)] = in[(y + j) * w + x];
}

// The row variable starts at threadIdx.y; double elements, scaled, size_t
// indices, and the reads strided (the writes coalesced).
__global__ void transposeRowsScaled(const double *a, double *b, double s, int n, int m) {
  unsigned i = blockIdx.x * TILE_DIM + threadIdx.x;
  for (unsigned r = threadIdx.y; r < TILE_DIM; r += BLOCK_ROWS) {
    unsigned j = blockIdx.y * TILE_DIM + r;
    if (i < n && j < m)
      b[(size_t)j * n + i] = s * a[(size_t)i * m + j];
  }
}

// A while loop from threadIdx.y by blockDim.y, the block's width free:
// every block shape is tiled.
__global__ void transposeRowsWhile(float *out, const float *in, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int r = threadIdx.y;
  while (r < TILE_DIM) {
    int y = blockIdx.y * TILE_DIM + r;
    if (x < w && y < h)
      out[x * h + y] = in[y * w + x];
    r += blockDim.y;
  }
}
