// A per-thread partial over a grid-stride loop, one atomicAdd per thread
// (the suite's reduce_sum).
__global__ void atomic_sum_loop(const float *x, float *out, int n) {
  float acc = 0.0f;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    acc += x[i];
  atomicAdd(out, acc);
}
