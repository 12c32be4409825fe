// Histogram of floats in [0, 1) into a run-time number of bins, the bin
// clamped with max/min to [0, nbins - 1].
__global__ void hist_bins(const float *x, unsigned int *bins, int n, int nbins) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    const int b = max(0, min((int)(x[i] * nbins), nbins - 1));
    atomicAdd(&bins[b], 1u);
  }
}
