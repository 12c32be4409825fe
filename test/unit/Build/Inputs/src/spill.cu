__device__ float dev(float *p, int n) {
  float acc[64];
  for (int i = 0; i < 64; ++i) acc[i] = p[i * n];
  float s = 0;
  for (int i = 0; i < 64; ++i) s += acc[(i * 7) % 64] * acc[i];
  return s;
}
__global__ void __launch_bounds__(1024, 2) heavy(float *p, int n) {
  float v[48];
  #pragma unroll
  for (int i = 0; i < 48; ++i) v[i] = p[threadIdx.x + i * n];
  float s = 0;
  #pragma unroll
  for (int i = 0; i < 48; ++i) s += v[i] * v[47 - i] * v[(i * 5) % 48];
  p[threadIdx.x] = s + dev(p, n);
}
