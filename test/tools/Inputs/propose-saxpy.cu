// Input of the propose tests: an elementwise kernel and a constant launch.
__global__ void saxpy(int n, float a, const float *x, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = a * x[i] + y[i];
}

__global__ void other(float *y) { y[threadIdx.x] = 0.f; }

void run(int n, float a, const float *x, float *y) {
  saxpy<<<(n + 255) / 256, 256>>>(n, a, x, y);
}
