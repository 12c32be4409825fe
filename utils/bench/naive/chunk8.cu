// out = alpha * in + beta, each thread handling 8 consecutive elements.
#define PER_THREAD 8
__global__ void affine_chunked(const float *in, float *out, float alpha, float beta, int n) {
  int first = (blockIdx.x * blockDim.x + threadIdx.x) * PER_THREAD;
  for (int e = first; e < first + PER_THREAD && e < n; ++e)
    out[e] = alpha * in[e] + beta;
}
