// Occupancy on a real GPU, to check lib/Arch's calculator against the CUDA
// runtime. For each kernel and configuration it prints one JSON line with
// what cudaFuncGetAttributes reports (registers, static shared memory) and
// what cudaOccupancyMaxActiveBlocksPerMultiprocessor returns.
//
//   nvcc -arch=sm_90 -o occupancy_check utils/gpu/occupancy_check.cu && ./occupancy_check
#include <cstdio>
#include <cuda_runtime.h>

__global__ void light(float *x) { x[blockIdx.x * blockDim.x + threadIdx.x] *= 2.0f; }

template <int N>
__global__ void staticShared(float *x) {
  __shared__ float tile[N];
  tile[threadIdx.x % N] = x[threadIdx.x];
  __syncthreads();
  x[threadIdx.x] = tile[(threadIdx.x + 1) % N];
}

__global__ void dynamicShared(float *x) {
  extern __shared__ float tile[];
  tile[threadIdx.x] = x[threadIdx.x];
  __syncthreads();
  x[threadIdx.x] = tile[blockDim.x - 1 - threadIdx.x];
}

// Many independent accumulators keep many registers live.
template <int R>
__global__ void registerHeavy(const float *in, float *out, int n) {
  float acc[R];
#pragma unroll
  for (int r = 0; r < R; ++r)
    acc[r] = in[(threadIdx.x + r * 97) % n];
  for (int k = 0; k < n; k += 32)
#pragma unroll
    for (int r = 0; r < R; ++r)
      acc[r] = acc[r] * in[(k + r) % n] + acc[(r + 1) % R];
  float s = 0;
#pragma unroll
  for (int r = 0; r < R; ++r)
    s += acc[r];
  out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

template <class K>
static void report(const char *name, K kernel, int block, size_t dyn) {
  cudaFuncAttributes a;
  cudaFuncGetAttributes(&a, kernel);
  if (dyn > 48 * 1024)
    cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)dyn);
  int blocks = -1;
  cudaError_t e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, block, dyn);
  printf("{\"kernel\": \"%s\", \"block\": %d, \"registers\": %d, \"static_shared\": %zu, "
         "\"dynamic_shared\": %zu, \"blocks_per_sm\": %d, \"status\": \"%s\"}\n",
         name, block, a.numRegs, a.sharedSizeBytes, dyn, blocks, cudaGetErrorString(e));
}

int main() {
  cudaDeviceProp p;
  cudaGetDeviceProperties(&p, 0);
  printf("{\"device\": \"%s\", \"cc\": \"%d.%d\", \"sms\": %d, \"smem_per_sm\": %zu, "
         "\"smem_optin\": %zu, \"regs_per_sm\": %d}\n",
         p.name, p.major, p.minor, p.multiProcessorCount, p.sharedMemPerMultiprocessor,
         p.sharedMemPerBlockOptin, p.regsPerMultiprocessor);
  for (int b : {128, 256, 1024})
    report("light", light, b, 0);
  report("staticShared<4096>", staticShared<4096>, 256, 0);
  report("staticShared<12288>", staticShared<12288>, 256, 0);
  report("staticShared<12288>", staticShared<12288>, 1024, 0);
  for (size_t d : {size_t(32 * 1024), size_t(100 * 1024), size_t(200 * 1024), size_t(227 * 1024)})
    report("dynamicShared", dynamicShared, 256, d);
  report("registerHeavy<16>", registerHeavy<16>, 256, 0);
  report("registerHeavy<64>", registerHeavy<64>, 256, 0);
  report("registerHeavy<64>", registerHeavy<64>, 512, 0);
  report("registerHeavy<128>", registerHeavy<128>, 128, 0);
  report("registerHeavy<128>", registerHeavy<128>, 256, 0);
  return 0;
}
