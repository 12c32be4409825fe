// A 100-bin histogram of floats in [0, 1): the bin clamped with two ifs,
// one thread per value (written 2026-12-04, after the rules).
__global__ void binned(const float *x, unsigned *h, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  int b = (int)(x[i] * 100.0f);
  if (b < 0)
    b = 0;
  if (b > 99)
    b = 99;
  atomicAdd(h + b, 1u);
}
