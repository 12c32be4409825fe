__global__ void minmax(const int* v, int n, int* lo, int* hi) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) { atomicMin(lo, v[i]); atomicMax(hi, v[i]); }
}
