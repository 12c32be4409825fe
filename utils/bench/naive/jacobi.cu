// One Jacobi sweep of the 2D Laplace equation: the interior only, guarded by
// i > 0 && i < nx - 1 (the border is left as it is).
__global__ void jacobi_step(const float *u, float *unew, int nx, int ny) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int j = blockIdx.y * blockDim.y + threadIdx.y;
  if (i > 0 && i < nx - 1 && j > 0 && j < ny - 1) {
    unew[j * nx + i] = 0.25f * (u[j * nx + i - 1] + u[j * nx + i + 1] +
                                u[(j - 1) * nx + i] + u[(j + 1) * nx + i]);
  }
}
