// Largest |x| over an int array: one atomicMax per thread into one address,
// the value computed in a __device__ helper.
__device__ int iabs(int v) { return v < 0 ? -v : v; }
__global__ void max_abs(const int *x, int *result, int n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicMax(result, iabs(x[i]));
}
void run_max_abs(const int *x, int *r, int n) { max_abs<<<(n + 127) / 128, 128>>>(x, r, n); }
