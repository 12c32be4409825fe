// out = a * in, 8 consecutive elements per thread, size_t positions and a
// constexpr chunk.
#include <cstddef>
constexpr int ITEMS = 8;
__global__ void scale_chunk_sz(const float *in, float *out, float a, size_t n) {
  size_t base = ((size_t)blockIdx.x * blockDim.x + threadIdx.x) * ITEMS;
  #pragma unroll
  for (int k = 0; k < ITEMS; k++)
    if (base + k < n) out[base + k] = a * in[base + k];
}
void run_scale_chunk_sz(const float *in, float *out, float a, size_t n) { scale_chunk_sz<<<(unsigned)((n + 2047) / 2048), 256>>>(in, out, a, n); }
