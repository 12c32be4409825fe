// Three statistics under different conditions into one array: a count, a
// sum of the large elements (two atomics into one element), a maximum of
// the low bytes.
__global__ void atomic_stats(const int *x, int n, int t, unsigned long long *st) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  atomicAdd(&st[0], 1ull);
  if (x[i] > t)
    atomicAdd(&st[1], (unsigned long long)x[i]);
  else
    atomicAdd(&st[1], 1ull);
  atomicMax(&st[2], (unsigned long long)(x[i] & 0xff));
}
