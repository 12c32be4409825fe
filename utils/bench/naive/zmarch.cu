// 7-point stencil, 2D grid over (x, y), each thread marches along z.
__global__ void lap3d(const float* __restrict__ in, float* __restrict__ out, int nx, int ny, int nz)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int j = blockIdx.y * blockDim.y + threadIdx.y;
  if (i < 1 || j < 1 || i >= nx - 1 || j >= ny - 1) return;
  size_t plane = (size_t)nx * ny;
  for (int k = 1; k < nz - 1; ++k) {
    size_t c = k * plane + (size_t)j * nx + i;
    out[c] = in[c - 1] + in[c + 1] + in[c - nx] + in[c + nx] + in[c - plane] + in[c + plane] - 6.0f * in[c];
  }
}
void run(const float* in, float* out, int nx, int ny, int nz) {
  dim3 b(32, 8), g((nx + 31) / 32, (ny + 7) / 8);
  lap3d<<<g, b>>>(in, out, nx, ny, nz);
}
