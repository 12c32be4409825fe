// Histogram counted with atomicInc and no wrap limit (0xffffffff), the
// bin computed from a float in [0, 1).
__global__ void hist_inc(const float *x, unsigned *bins, int n, int nbins) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    int b = (int)(x[i] * nbins);
    atomicInc(&bins[b], 0xffffffffu);
  }
}
void run_hist_inc(const float *x, unsigned *bins, int n, int nb) { hist_inc<<<(n + 255) / 256, 256>>>(x, bins, n, nb); }
