// A kernel that consumes its input: an element it has processed is marked
// (above 2) and skipped by the next launch. Timed without a restore before
// every launch, every launch after the first would skip all the work and
// look about iters times faster than recompute.cu, which does the same
// arithmetic unconditionally (utils/gpu/session-check.sh, step restore).
__global__ void consume(float *x, int n, int iters) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  float v = x[i];
  if (v > 2.0f)
    return;
  float a = v;
  for (int k = 0; k < iters; ++k)
    a = a * 0.999f + 0.001f * v;
  x[i] = 10.0f + a;
}
