// Elementwise maps whose arrays have elements of different sizes: int8
// weights dequantised to float, float pixels quantised to bytes, 16-bit
// samples widened to double, float to double.
__global__ void dequant(const signed char *q, float *out, float scale, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = scale * (float)q[i];
}

__global__ void to_bytes(const float *x, unsigned char *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  float v = x[i] * 255.f;
  y[i] = (unsigned char)(v < 0.f ? 0.f : (v > 255.f ? 255.f : v));
}

__global__ void widen(const short *a, double *b, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    b[i] = a[i] * 0.5;
}

__global__ void promote(const float *in, double *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = in[i];
}

// int8 weights with one scale per group of elements: the scale is a side
// read (each element reads its own group's), which stays scalar.
__global__ void dequant_group(const signed char *q, const float *scale, float *out, int n,
                              int group) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = scale[i / group] * (float)q[i];
}
