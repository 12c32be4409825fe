__device__ __noinline__ float helper(float x) {
  float buf[32];
  for (int i = 0; i < 32; ++i) buf[i] = x * i;
  return buf[(int)x & 31];
}

__global__ void scale(float *out, const float *in, float a, int n) {
  __shared__ float tile[1024];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  tile[threadIdx.x] = in[i];
  __syncthreads();
  if (i < n) out[i] = a * tile[threadIdx.x] + helper(a);
}

template <int N>
__global__ void tmpl(int *p) { p[threadIdx.x] = N; }
template __global__ void tmpl<4>(int *);
