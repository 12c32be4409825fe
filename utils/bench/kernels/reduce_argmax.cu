// Benchmark op: argmax (first-round kernel).
// Finds the largest x[i] and its index (the lowest index on ties), packed
// into one 64-bit word so that a single atomicMax combines both:
//
//   *out = (key(x[i]) << 32) | (0xFFFFFFFF - i)
//
// where key() maps a float to an unsigned int of the same order (flip the
// sign bit of non-negative floats, all bits of negative ones). A larger
// value wins; among equal values the smaller index has the larger low word.
// Decode with: i = 0xFFFFFFFF - (unsigned)(*out), value = key^-1(*out >> 32).
// *out must hold 0 before the launch (the spec's init; every packed key is
// larger). The result is exact, so the output compares exactly.
//
// Each thread keeps its best packed word over a grid-stride loop (about 256
// elements with the spec's grid), then one atomicMax. NaN inputs are not
// supported. Spec size: N = 2^24 (16M floats); the second size is 2^26.
__device__ unsigned long long argmax_pack(float v, unsigned i) {
  unsigned b = __float_as_uint(v);
  unsigned key = (b & 0x80000000u) ? ~b : (b | 0x80000000u);
  return ((unsigned long long)key << 32) | (0xFFFFFFFFu - i);
}

__global__ void reduce_argmax(const float *x, unsigned long long *out, int n) {
  unsigned long long best = 0;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += gridDim.x * blockDim.x) {
    unsigned long long p = argmax_pack(x[i], (unsigned)i);
    if (p > best)
      best = p;
  }
  atomicMax(out, best);
}

void launch_reduce_argmax(const float *x, unsigned long long *out, int n) {
  const int block = 256, items = 256;
  int grid = (n + block * items - 1) / (block * items);
  reduce_argmax<<<grid, block>>>(x, out, n);
}
