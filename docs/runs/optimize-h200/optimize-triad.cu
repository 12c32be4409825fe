// Benchmark op: STREAM triad (first-round kernel).
// a[i] = b[i] + s * c[i] for n floats, one thread per element.
__global__ void triad(float *a, const float *b, const float *c, float s, int n) {
  // 4 elements per access while every pointer is 16-byte aligned (cudaMalloc
  // gives 256 bytes), then one at a time; both loops stride over the grid.
  const long long forge_n = n;
  const long long forge_first = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  const long long forge_stride = (long long)blockDim.x * gridDim.x;
  const bool forge_aligned = ((reinterpret_cast<size_t>(a) | reinterpret_cast<size_t>(b) | reinterpret_cast<size_t>(c)) % 16) == 0;
  const long long forge_vectors = forge_aligned && forge_n > 0 ? forge_n / 4 : 0;
  for (long long forge_v = forge_first; forge_v < forge_vectors; forge_v += forge_stride) {
    float4 forge_a;
    const float4 forge_b = reinterpret_cast<const float4 *>(b)[forge_v];
    const float4 forge_c = reinterpret_cast<const float4 *>(c)[forge_v];
    { forge_a.x = forge_b.x + s * forge_c.x; }
    { forge_a.y = forge_b.y + s * forge_c.y; }
    { forge_a.z = forge_b.z + s * forge_c.z; }
    { forge_a.w = forge_b.w + s * forge_c.w; }
    reinterpret_cast<float4 *>(a)[forge_v] = forge_a;
  }
  for (long long i = forge_vectors * 4 + forge_first; i < forge_n; i += forge_stride)
    a[i] = b[i] + s * c[i];
}

void launch_triad(float *a, const float *b, const float *c, float s, int n) {
  const int block = 256;
  triad<<<(n + block - 1) / block, block>>>(a, b, c, s, n);
}
