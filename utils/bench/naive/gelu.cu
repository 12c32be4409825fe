// GELU (tanh form) applied in place, one element per thread, early return.
__global__ void gelu_fwd(float *x, int n) {
  int tid = blockIdx.x * blockDim.x + threadIdx.x;
  if (tid >= n) return;
  float v = x[tid];
  x[tid] = 0.5f * v * (1.0f + tanhf(0.7978845608f * (v + 0.044715f * v * v * v)));
}
