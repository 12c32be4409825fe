// Byte histogram privatised per block by hand, a grid-stride loop with the
// stride in a local, launched with a fixed 16 blocks.
__global__ void hist_gs(const unsigned char *data, unsigned int *hist, int n) {
  __shared__ unsigned int local[256];
  for (int b = threadIdx.x; b < 256; b += blockDim.x)
    local[b] = 0;
  __syncthreads();
  const int stride = blockDim.x * gridDim.x;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
    atomicAdd(&local[data[i]], 1u);
  __syncthreads();
  for (int b = threadIdx.x; b < 256; b += blockDim.x)
    atomicAdd(&hist[b], local[b]);
}
