// A CUDA 8-era kernel file: legacy warp intrinsics, an sm_80-only guard,
// a removed cudaDeviceProp field and a launch with 100 KB of dynamic shared
// memory. `forge-port examples/legacy_reduce.cu --to sm_100` ports it.
#include <cstdio>
#include <cuda_runtime.h>

__device__ float warpSum(float v) {
  for (int offset = 16; offset > 0; offset /= 2)
    v += __shfl_down(v, offset);
  return v;
}

__global__ void blockSum(const float *in, float *out, int n) {
  extern __shared__ float tile[];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  tile[threadIdx.x] = i < n ? in[i] : 0.0f;
  __syncthreads();
  float v = warpSum(tile[threadIdx.x]);
#if __CUDA_ARCH__ == 800
  if ((threadIdx.x & 31) == 0)
    atomicAdd(out, v);
#else
  if ((threadIdx.x & 31) == 0)
    atomicAdd(out, v);
#endif
}

int main() {
  cudaDeviceProp prop;
  int dev = 0;
  cudaGetDeviceProperties(&prop, dev);
  printf("%s at %d kHz\n", prop.name, prop.clockRate);
  int n = 1 << 20;
  float *in = nullptr, *out = nullptr;
  cudaMalloc(&in, n * sizeof(float));
  cudaMalloc(&out, sizeof(float));
  blockSum<<<n / 1024, 1024, 102400>>>(in, out, n);
  cudaDeviceSynchronize();
  return 0;
}
