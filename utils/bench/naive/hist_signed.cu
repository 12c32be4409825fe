// Counts of signed keys by key % nbins, the remainder made non-negative by
// hand; a grid-stride loop over the keys.
__global__ void hist_mod(const int *keys, unsigned int *counts, int n, int nbins) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    int b = keys[i] % nbins;
    if (b < 0) b += nbins;
    atomicAdd(&counts[b], 1u);
  }
}
