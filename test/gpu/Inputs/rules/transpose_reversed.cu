// Transposes with a reversed index for the transpose-tile GPU check
// (transpose-tile-reversed.cu): in is h rows of w elements. rotate90 turns
// it a quarter clockwise (the store's fast index runs backwards), rotate270
// a quarter counter-clockwise written as a gather over the output (the
// load's fast index runs backwards, reads strided), flip_x transposes the
// image mirrored left to right (the load backwards, a scaled value),
// anti_transpose reflects it on the anti-diagonal (the store backwards
// along both positions, early exits), and rotate90_fixed is rotate90 with
// positions written with the constants 32 and 8 (tiled for 32 x 8 blocks,
// the original body for others).
__global__ void rotate90(const float *in, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h)
    out[x * h + (h - 1 - y)] = in[y * w + x];
}

// Threads over the output (w rows of h): out[y][x] = in[x][w - 1 - y].
__global__ void rotate270(const double *in, double *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < h && y < w)
    out[y * h + x] = in[x * w + (w - 1 - y)];
}

__global__ void flip_x(const float *in, float *out, float s, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h)
    out[x * h + y] = s * in[y * w + (w - 1 - x)];
}

__global__ void anti_transpose(const float *in, float *out, int w, int h) {
  int x = threadIdx.x + blockDim.x * blockIdx.x;
  int y = threadIdx.y + blockDim.y * blockIdx.y;
  if (x >= w) return;
  if (y >= h) return;
  out[(w - 1 - x) * h + (h - 1 - y)] = in[y * w + x];
}

__global__ void rotate90_fixed(const float *in, float *out, int w, int h) {
  int x = blockIdx.x * 32 + threadIdx.x;
  int y = blockIdx.y * 8 + threadIdx.y;
  if (x < w && y < h)
    out[x * h + (h - 1 - y)] = in[y * w + x];
}
