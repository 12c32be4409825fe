__global__ void big(float *p) {
  __shared__ float s[18432];
  s[threadIdx.x] = p[threadIdx.x];
  __syncthreads();
  p[threadIdx.x] = s[threadIdx.x + 1];
}
