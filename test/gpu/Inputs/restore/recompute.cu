// consume.cu without the skip: the same arithmetic on every launch.
__global__ void consume(float *x, int n, int iters) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  float v = x[i];
  float a = v;
  for (int k = 0; k < iters; ++k)
    a = a * 0.999f + 0.001f * v;
  x[i] = 10.0f + a;
}
