// int8 weights dequantised to float with one scale per group of 128
// elements (the loading step of a weight-only quantised matmul), one
// element per thread, the way it is usually first written.
__global__ void dequant_int8(const signed char *q, const float *scales, float *out, int n,
                             int group) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = scales[i / group] * (float)q[i];
}
