// The naive O(n^2) prefix sum: each thread sums the input up to its own element.
__global__ void prefix_sum_naive(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float s = 0.0f;
    for (int j = 0; j <= i; ++j) s += in[j];
    out[i] = s;
  }
}
