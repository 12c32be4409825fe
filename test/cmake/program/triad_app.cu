// A whole program around the triad kernel, for program-mode tuning
// (`forge-port tune --run "{exe}"`, RUN in forge_port_kernels): it launches
// the kernel ten times and prints a checksum that every correct
// configuration reproduces.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
#include <vector>

template <int Items>
__global__ void triad(float *a, const float *b, const float *c, float s, int n) {
  int base = blockIdx.x * blockDim.x * Items + threadIdx.x;
#pragma unroll
  for (int k = 0; k < Items; ++k) {
    int i = base + k * blockDim.x;
    if (i < n)
      a[i] = b[i] + s * c[i];
  }
}

constexpr int BLOCK = 256;
constexpr int ITEMS = 1;

int main() {
  const int n = 1 << 24;
  std::vector<float> hb(n), hc(n), ha(n);
  for (int i = 0; i < n; ++i) {
    hb[i] = float(i % 1000) * 0.5f;
    hc[i] = float((i * 7) % 1000) * 0.25f;
  }
  float *a, *b, *c;
  if (cudaMalloc(&a, n * sizeof(float)) || cudaMalloc(&b, n * sizeof(float)) ||
      cudaMalloc(&c, n * sizeof(float))) {
    std::fprintf(stderr, "cudaMalloc failed\n");
    return 1;
  }
  cudaMemcpy(b, hb.data(), n * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(c, hc.data(), n * sizeof(float), cudaMemcpyHostToDevice);
  for (int rep = 0; rep < 10; ++rep)
    triad<ITEMS><<<(n + BLOCK * ITEMS - 1) / (BLOCK * ITEMS), BLOCK>>>(a, b, c, 3.0f, n);
  if (cudaDeviceSynchronize() != cudaSuccess) {
    std::fprintf(stderr, "the kernel failed\n");
    return 1;
  }
  cudaMemcpy(ha.data(), a, n * sizeof(float), cudaMemcpyDeviceToHost);
  double sum = 0;
  for (int i = 0; i < n; ++i)
    sum += ha[i];
  std::printf("checksum %.6e\n", sum);
  cudaFree(a);
  cudaFree(b);
  cudaFree(c);
  return 0;
}
