// 2x2 max pooling with stride 2: each thread reads a 2x2 window.
__global__ void maxpool2x2(const float *in, float *out, int H, int W) {
  int ox = blockIdx.x * blockDim.x + threadIdx.x;
  int oy = blockIdx.y * blockDim.y + threadIdx.y;
  int OW = W / 2, OH = H / 2;
  if (ox < OW && oy < OH) {
    float a = in[(2 * oy) * W + 2 * ox];
    float b = in[(2 * oy) * W + 2 * ox + 1];
    float c = in[(2 * oy + 1) * W + 2 * ox];
    float d = in[(2 * oy + 1) * W + 2 * ox + 1];
    out[oy * OW + ox] = fmaxf(fmaxf(a, b), fmaxf(c, d));
  }
}
