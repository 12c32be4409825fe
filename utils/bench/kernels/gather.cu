// Benchmark op: gather (first-round kernel).
// out[i] = x[idx[i]] for n elements; idx holds arbitrary indices in [0, n)
// (the spec fills it with uniform random integers, so duplicates occur and
// the reads of x are random). One thread per output element.
__global__ void gather(const float *x, const int *idx, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = x[idx[i]];
}

void launch_gather(const float *x, const int *idx, float *out, int n) {
  const int block = 256;
  gather<<<(n + block - 1) / block, block>>>(x, idx, out, n);
}
