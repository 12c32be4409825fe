// out = a * in, each thread handling 8 consecutive elements; the thread's
// first element from a __device__ function.
__device__ int first_elem() { return (blockIdx.x * blockDim.x + threadIdx.x) * 8; }
__global__ void scale_chunk(const float *in, float *out, float a, int n) {
  int base = first_elem();
  for (int k = 0; k < 8; ++k) {
    int e = base + k;
    if (e < n) out[e] = a * in[e];
  }
}
void run_scale_chunk(const float *in, float *out, float a, int n) { scale_chunk<<<(n + 2047) / 2048, 256>>>(in, out, a, n); }
