// The correct kernel the planted ones are measured against: a 3-point mean
// with clamped edges over n floats.
__global__ void stencil3(const float *x, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  float l = x[i > 0 ? i - 1 : 0];
  float r = x[i < n - 1 ? i + 1 : n - 1];
  out[i] = (l + x[i] + r) * (1.0f / 3.0f);
}
