// CUDA by Example's grid-stride while loop, with a run-time count and with
// a macro count.
__global__ void add_while(const int *a, const int *b, int *c, int n) {
  int tid = threadIdx.x + blockIdx.x * blockDim.x;
  while (tid < n) {
    c[tid] = a[tid] + b[tid];
    tid += blockDim.x * gridDim.x;
  }
}

#define WHILE_MAPS_N 1000003
__global__ void saxpy_macro(float a, const float *x, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  while (i < WHILE_MAPS_N) {
    y[i] = a * x[i] + y[i];
    i += blockDim.x * gridDim.x;
  }
}
