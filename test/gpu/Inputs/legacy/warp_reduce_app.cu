// A CUDA 4-era program for the device check of legacy-runtime-hazards:
// its scale factor goes up by name (a string, removed in CUDA 5.0) and its
// block sums end in the unrolled warp-synchronous reduction of the SDK
// samples. It checks every block sum against the host and prints one line.
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

__constant__ float scale[1];

__global__ void blockSums(const float *in, float *out, int n) {
  __shared__ float sdata[256];
  unsigned tid = threadIdx.x;
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  sdata[tid] = i < n ? in[i] * scale[0] : 0.0f;
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 32; s >>= 1) {
    if (tid < s)
      sdata[tid] += sdata[tid + s];
    __syncthreads();
  }
  if (tid < 32) {
    volatile float *smem = sdata;
    smem[tid] += smem[tid + 32];
    smem[tid] += smem[tid + 16];
    smem[tid] += smem[tid + 8];
    smem[tid] += smem[tid + 4];
    smem[tid] += smem[tid + 2];
    smem[tid] += smem[tid + 1];
  }
  if (tid == 0)
    out[blockIdx.x] = sdata[0];
}

// warp_reduce_app [log2 n] [repetitions]: 2^24 elements 20 times by default.
int main(int argc, char **argv) {
  const int n = 1 << (argc > 1 ? atoi(argv[1]) : 24), reps = argc > 2 ? atoi(argv[2]) : 20;
  const int block = 256, blocks = (n + block - 1) / block;
  std::vector<float> h(n), sums(blocks);
  srand(7);
  for (float &v : h)
    v = float(rand() % 16); // small integers: every block sum is exact
  float *din, *dout;
  cudaMalloc(&din, n * sizeof(float));
  cudaMalloc(&dout, blocks * sizeof(float));
  cudaMemcpy(din, h.data(), n * sizeof(float), cudaMemcpyHostToDevice);
  const float one = 1.0f;
  cudaError_t up = cudaMemcpyToSymbol("scale", &one, sizeof(float));
  int bad = 0;
  for (int rep = 0; rep < reps; ++rep) {
    cudaMemset(dout, 0, blocks * sizeof(float));
    blockSums<<<blocks, block>>>(din, dout, n);
    cudaMemcpy(sums.data(), dout, blocks * sizeof(float), cudaMemcpyDeviceToHost);
    for (int b = 0; b < blocks; ++b) {
      float want = 0;
      for (int k = b * block; k < (b + 1) * block && k < n; ++k)
        want += h[k];
      bad += sums[b] != want;
    }
  }
  printf("upload: %s; block sums wrong: %d of %d\n", cudaGetErrorString(up), bad, reps * blocks);
  return bad != 0;
}
