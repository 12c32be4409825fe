// PMPP-style 7-point stencil: interior guard in one condition, fixed
// coefficients, the plane offset written as k * ny * nx.
__global__ void stencil7(const float *in, float *out, int nx, int ny, int nz) {
  int k = blockIdx.z * blockDim.z + threadIdx.z;
  int j = blockIdx.y * blockDim.y + threadIdx.y;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= 1 && i < nx - 1 && j >= 1 && j < ny - 1 && k >= 1 && k < nz - 1) {
    out[k * ny * nx + j * nx + i] = 0.5f * in[k * ny * nx + j * nx + i]
        + 0.1f * (in[k * ny * nx + j * nx + i - 1] + in[k * ny * nx + j * nx + i + 1]
                + in[k * ny * nx + (j - 1) * nx + i] + in[k * ny * nx + (j + 1) * nx + i]
                + in[(k - 1) * ny * nx + j * nx + i] + in[(k + 1) * ny * nx + j * nx + i]);
  }
}
void run_stencil7(const float *in, float *out, int nx, int ny, int nz) {
  stencil7<<<dim3((nx + 31) / 32, (ny + 3) / 4, (nz + 3) / 4), dim3(32, 4, 4)>>>(in, out, nx, ny, nz);
}
