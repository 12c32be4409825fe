// A per-thread partial sum over a strided slice, added into one float with
// atomicAdd, and half of it, negated, into a second output (a macro argument).
#define HALF(v) ((v) * 0.5f)
__global__ void sum_and_neg(const float *x, float *sum, float *neg, long long n) {
  float acc = 0.0f;
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x)
    acc += x[i];
  if (acc == 0.0f)
    return;
  atomicAdd(&sum[0], acc);
  atomicAdd(neg, HALF(-acc));
}

// Reads its own output: no precision reference.
__global__ void sum_reads_back(const float *x, float *sum, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && sum[0] < 1e30f)
    atomicAdd(sum, x[i]);
}
