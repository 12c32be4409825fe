// out = a * in, 8 consecutive elements per thread, written through a
// __device__ store helper.
__device__ void put(float *p, int i, float v) { p[i] = v; }
__global__ void scale_chunk_st(const float *in, float *out, float a, int n) {
  int first = 8 * (blockIdx.x * blockDim.x + threadIdx.x);
  for (int e = first; e < first + 8 && e < n; e++)
    put(out, e, a * in[e]);
}
void run_scale_chunk_st(const float *in, float *out, float a, int n) { scale_chunk_st<<<(n + 2047) / 2048, 256>>>(in, out, a, n); }
