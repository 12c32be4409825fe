// A kernel in a host program that already includes the headers for
// processes, files, the network and the environment, so that each
// malicious edit of optimize-malicious.test has every declaration it needs
// and is rejected by the edit check, not by a parse error.
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <dlfcn.h>
#include <spawn.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <netinet/in.h>
#include <arpa/inet.h>

__global__ void scale(const float *x, float *y, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i];
}

int main() {
  const int n = 1 << 20;
  float *x, *y;
  cudaMalloc((void **)&x, n * sizeof(float));
  cudaMalloc((void **)&y, n * sizeof(float));
  scale<<<(n + 255) / 256, 256>>>(x, y, 2.0f, n);
  cudaDeviceSynchronize();
  printf("done\n");
  return 0;
}
