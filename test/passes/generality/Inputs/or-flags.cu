// A flag word: each thread ORs its element's sign bit into one address
// through a __device__ wrapper around atomicOr.
__device__ void set_bits(unsigned *word, unsigned bits) { atomicOr(word, bits); }
__global__ void any_negative(const float *x, unsigned *flags, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    set_bits(flags, x[i] < 0.0f ? 1u : 0u);
}
void run_any_negative(const float *x, unsigned *f, int n) { any_negative<<<(n + 255) / 256, 256>>>(x, f, n); }
