// 3x3 clamped box blur, the clamp in a __device__ helper.
__device__ int clampi(int v, int lo, int hi) { return v < lo ? lo : (v > hi ? hi : v); }
__global__ void blur_clamp(const float *in, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  float s = 0.0f;
  for (int dy = -1; dy <= 1; dy++)
    for (int dx = -1; dx <= 1; dx++)
      s += in[clampi(y + dy, 0, h - 1) * w + clampi(x + dx, 0, w - 1)];
  out[y * w + x] = s / 9.0f;
}
void run_blur_clamp(const float *in, float *out, int w, int h) {
  blur_clamp<<<dim3((w + 15) / 16, (h + 15) / 16), dim3(16, 16)>>>(in, out, w, h);
}
