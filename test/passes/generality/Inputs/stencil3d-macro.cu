// 7-point stencil on doubles with an IDX3 macro and an early return.
#define IDX3(i, j, k) (((k) * ny + (j)) * nx + (i))
__global__ void stencil7m(const double *u, double *v, int nx, int ny, int nz) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int j = blockIdx.y * blockDim.y + threadIdx.y;
  int k = blockIdx.z * blockDim.z + threadIdx.z;
  if (i < 1 || j < 1 || k < 1 || i > nx - 2 || j > ny - 2 || k > nz - 2) return;
  v[IDX3(i, j, k)] = u[IDX3(i - 1, j, k)] + u[IDX3(i + 1, j, k)] + u[IDX3(i, j - 1, k)]
                   + u[IDX3(i, j + 1, k)] + u[IDX3(i, j, k - 1)] + u[IDX3(i, j, k + 1)]
                   - 6.0 * u[IDX3(i, j, k)];
}
void run_stencil7m(const double *u, double *v, int nx, int ny, int nz) {
  stencil7m<<<dim3((nx + 31) / 32, (ny + 3) / 4, (nz + 3) / 4), dim3(32, 4, 4)>>>(u, v, nx, ny, nz);
}
