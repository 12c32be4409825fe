// 256-bin histogram of bytes, one atomicAdd in global memory per element.
__global__ void histogram256(const unsigned char *data, unsigned int *bins, long long count) {
  long long idx = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  long long step = (long long)blockDim.x * gridDim.x;
  while (idx < count) {
    atomicAdd(&bins[data[idx]], 1u);
    idx += step;
  }
}
