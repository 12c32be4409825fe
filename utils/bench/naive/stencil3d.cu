// 7-point Laplacian on an nx x ny x nz grid; the boundary layer is copied.
__global__ void laplace7(const double *u, double *v, int nx, int ny, int nz) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int j = blockIdx.y * blockDim.y + threadIdx.y;
  int k = blockIdx.z * blockDim.z + threadIdx.z;
  if (i >= nx || j >= ny || k >= nz)
    return;
  size_t sy = nx, sz = (size_t)nx * ny;
  size_t c = i + j * sy + k * sz;
  if (i == 0 || j == 0 || k == 0 || i == nx - 1 || j == ny - 1 || k == nz - 1) {
    v[c] = u[c];
    return;
  }
  v[c] = u[c - 1] + u[c + 1] + u[c - sy] + u[c + sy] + u[c - sz] + u[c + sz] - 6.0 * u[c];
}
