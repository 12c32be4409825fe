// In place: each row divided by its largest absolute value (2 passes).
__global__ void row_scale(float *A, int m, int n) {
  unsigned row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < m) {
    float mx = 0;
    for (int k = 0; k < n; ++k)
      mx = fmaxf(mx, fabsf(A[row * n + k]));
    for (int k = 0; k < n; ++k)
      A[row * n + k] /= mx;
  }
}
