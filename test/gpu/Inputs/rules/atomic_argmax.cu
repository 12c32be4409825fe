// The suite's argmax: value and index packed into 64 bits, one atomicMax per
// thread after a grid-stride loop.
__device__ unsigned long long argmax_pack(float v, unsigned i) {
  unsigned b = __float_as_uint(v);
  unsigned key = (b & 0x80000000u) ? ~b : (b | 0x80000000u);
  return ((unsigned long long)key << 32) | (0xFFFFFFFFu - i);
}

__global__ void atomic_argmax(const float *x, unsigned long long *out, int n) {
  unsigned long long best = 0;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    unsigned long long p = argmax_pack(x[i], (unsigned)i);
    if (p > best)
      best = p;
  }
  atomicMax(out, best);
}
