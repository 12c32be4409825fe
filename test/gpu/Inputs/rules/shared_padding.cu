// Kernels whose __shared__ tiles a warp walks down a column (the inputs of
// test/gpu/rules/shared-padding.cu): the shared-padding rule pads each
// tile's rows, and the check program compares every original with its
// rewrite.

// The NVIDIA blog post "An Efficient Matrix Transpose in CUDA C/C++": its
// coalesced transpose through a shared tile, before the padding that
// removes the tile's bank conflicts (utils/bench/naive/transpose_smem.cu;
// 32 x 8 blocks, 4 rows per thread). The column read is 32-way.
#define TILE 32
#define ROWS 8
__global__ void transposeCoalesced(float *odata, const float *idata, int width, int height) {
  __shared__ float tile[TILE][TILE];
  int x = blockIdx.x * TILE + threadIdx.x;
  int y = blockIdx.y * TILE + threadIdx.y;
  for (int j = 0; j < TILE; j += ROWS)
    if (x < width && y + j < height)
      tile[threadIdx.y + j][threadIdx.x] = idata[(y + j) * width + x];
  __syncthreads();
  x = blockIdx.y * TILE + threadIdx.x;
  y = blockIdx.x * TILE + threadIdx.y;
  for (int j = 0; j < TILE; j += ROWS)
    if (x < height && y + j < width)
      odata[(y + j) * height + x] = tile[threadIdx.x][threadIdx.y + j];
}

// Row sums of doubles through a staged 32 x 32 tile: the block stages 32
// rows of 32 columns (any 32 x Y block), then lane x sums row x of the tile
// in column order, a column read by the warp (8-byte elements are served
// in half-warps: 16-way).
__global__ void row_sums_f64(const double *in, double *out, int rows, int cols) {
  __shared__ double t[32][32];
  int row0 = blockIdx.x * 32;
  double acc = 0.0;
  for (int c0 = 0; c0 < cols; c0 += 32) {
    for (int r = threadIdx.y; r < 32; r += blockDim.y)
      t[r][threadIdx.x] = row0 + r < rows && c0 + threadIdx.x < cols
                              ? in[(size_t)(row0 + r) * cols + c0 + threadIdx.x]
                              : 0.0;
    __syncthreads();
    if (threadIdx.y == 0)
      for (int k = 0; k < 32; ++k)
        acc += t[threadIdx.x][k];
    __syncthreads();
  }
  if (threadIdx.y == 0 && row0 + threadIdx.x < rows)
    out[row0 + threadIdx.x] = acc;
}

// A transpose through a 64 x 64 tile whose extent is a constexpr, for any
// 2D block (each thread walks the tile in steps of the block); the column
// read is 32-way for blocks at least 32 wide.
constexpr int kTile = 64;
__global__ void transpose_cexpr(const float *in, float *out, int rows, int cols) {
  __shared__ float tile[kTile][kTile];
  int bx = blockIdx.x * kTile, by = blockIdx.y * kTile;
  for (int j = 0; j < kTile; j += blockDim.y)
    for (int i = 0; i < kTile; i += blockDim.x) {
      int r = threadIdx.y + j, c = threadIdx.x + i;
      if (r < kTile && c < kTile && by + r < rows && bx + c < cols)
        tile[r][c] = in[(size_t)(by + r) * cols + bx + c];
    }
  __syncthreads();
  for (int j = 0; j < kTile; j += blockDim.y)
    for (int i = 0; i < kTile; i += blockDim.x) {
      int r = threadIdx.y + j, c = threadIdx.x + i;
      if (r < kTile && c < kTile && bx + r < cols && by + c < rows)
        out[(size_t)(bx + r) * rows + by + c] = tile[c][r];
    }
}

// A flat thread index split into a row and a column (256 threads): the
// write puts 8 rows and 4 columns in one warp, 8-way in 4 banks; the read
// takes the tile back row by row, a permutation within each block.
__global__ void flat_split(const int *in, int *out, int n) {
  __shared__ int t[8][32];
  int i = blockIdx.x * 256 + threadIdx.x;
  t[threadIdx.x % 8][threadIdx.x / 8] = i < n ? in[i] : -1;
  __syncthreads();
  if (i < n)
    out[i] = t[threadIdx.x / 32][threadIdx.x % 32];
}
