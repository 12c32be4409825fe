// Letter frequencies of a text: one thread per character, a global atomic
// per lowercase letter (written 2026-12-04, after the rules).
__global__ void letter_counts(const char *text, unsigned *freq, size_t len) {
  size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (i < len) {
    unsigned char c = text[i];
    if (c >= 'a' && c <= 'z')
      atomicAdd(&freq[c - 'a'], 1u);
  }
}
