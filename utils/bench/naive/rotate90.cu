// Rotation of an image by 90 degrees: a transpose whose output column runs
// backwards.
__global__ void rotate90(const float *in, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) out[x * h + (h - 1 - y)] = in[y * w + x];
}
