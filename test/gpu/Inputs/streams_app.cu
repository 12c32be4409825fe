// Program mode on several streams (utils/gpu/session-check.sh, step
// streams): `work` runs on two streams and is synchronised; `spin` is
// launched on a third stream last and never synchronised, so it is still
// running when main returns. forge-port measure --run must count `work` on
// both streams and warn that one launch was left running.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void work(float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    x[i] = x[i] * 0.5f + 1.0f;
}

__global__ void spin(unsigned long long cycles) {
  unsigned long long start = clock64();
  while (clock64() - start < cycles) {
  }
}

int main() {
  const int n = 1 << 22;
  float *a, *b;
  cudaMalloc(&a, n * sizeof(float));
  cudaMalloc(&b, n * sizeof(float));
  cudaMemset(a, 0, n * sizeof(float));
  cudaMemset(b, 0, n * sizeof(float));
  cudaStream_t s1, s2, s3;
  cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking);
  cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking);
  cudaStreamCreateWithFlags(&s3, cudaStreamNonBlocking);
  for (int r = 0; r < 10; ++r) {
    work<<<n / 256, 256, 0, s1>>>(a, n);
    work<<<n / 256, 256, 0, s2>>>(b, n);
  }
  cudaStreamSynchronize(s1);
  cudaStreamSynchronize(s2);
  float h = 0;
  cudaMemcpy(&h, a, sizeof h, cudaMemcpyDeviceToHost);
  std::printf("a[0] = %g\n", h);
  // About 2 s at 2 GHz; main returns long before it ends.
  spin<<<1, 1, 0, s3>>>(4000000000ull);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
