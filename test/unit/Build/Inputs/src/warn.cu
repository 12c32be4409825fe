__global__ void w(float *p) {
  int y = 3;
  p[threadIdx.x] = 1.0f;
}
