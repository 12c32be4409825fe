// Histogram of bytes, grid-strided with for (;;), the count through a
// __device__ wrapper around atomicAdd.
__device__ void bump(unsigned *bin) { atomicAdd(bin, 1u); }
__global__ void hist_wrap(const unsigned char *data, unsigned *bins, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int stride = gridDim.x * blockDim.x;
  for (;; i += stride) {
    if (i >= n) break;
    bump(&bins[data[i]]);
  }
}
void run_hist_wrap(const unsigned char *d, unsigned *b, int n) { hist_wrap<<<264, 256>>>(d, b, n); }
