// The GPU path of the suite: a kernel built with nvcc for the local GPU's
// arch runs and computes the right answer. Skipped (and reported as
// skipped by ctest's lit-gpu test) where no GPU answers.
// REQUIRES: gpu, cuda
// RUN: %nvcc -arch=native -o %t %s
// RUN: %t | FileCheck %s
// CHECK: sum of 1..1024 = 524800

#include <cstdio>
#include <cuda_runtime.h>

__global__ void sum(const int *in, int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicAdd(out, in[i]);
}

int main() {
  const int n = 1024;
  int h[n];
  for (int i = 0; i < n; ++i)
    h[i] = i + 1;
  int *in, *out, total = 0;
  cudaMalloc(&in, n * sizeof(int));
  cudaMalloc(&out, sizeof(int));
  cudaMemcpy(in, h, n * sizeof(int), cudaMemcpyHostToDevice);
  cudaMemset(out, 0, sizeof(int));
  sum<<<n / 256, 256>>>(in, out, n);
  cudaMemcpy(&total, out, sizeof(int), cudaMemcpyDeviceToHost);
  printf("sum of 1..%d = %d (%s)\n", n, total, cudaGetErrorString(cudaGetLastError()));
  return 0;
}
