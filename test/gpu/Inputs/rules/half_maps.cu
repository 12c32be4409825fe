// Elementwise maps over 16-bit floats (cuda_fp16.h, cuda_bf16.h): a sum of
// halves with the header's intrinsic, floats rounded to halves, bfloat16
// activations scaled into floats.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

__global__ void hadd(const __half *a, const __half *b, __half *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    c[i] = __hadd(a[i], b[i]);
}

__global__ void to_half(const float *x, __half *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  y[i] = __float2half(x[i]);
}

__global__ void bf_scale(const __nv_bfloat16 *x, float *y, float s, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    y[i] = s * __bfloat162float(x[i]);
}
