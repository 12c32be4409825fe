// One plane per block along z (blockIdx.z, 2D blocks): the kernels
// plane-loop turns into a loop over planes for stencil-z-march.
// The 7-point Laplacian, the plane declared beside x and y, an early return
// with the tests of z among the others.
__global__ void lap_planes(const float *in, float *out, int nx, int ny, int nz) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y,
      z = blockIdx.z;
  if (x < 1 || y < 1 || z < 1 || x >= nx - 1 || y >= ny - 1 || z >= nz - 1) return;
  size_t s = (size_t)nx * ny, id = z * s + y * nx + x;
  out[id] = in[id - 1] + in[id + 1] + in[id - nx] + in[id + nx] + in[id - s] + in[id + s] -
            6 * in[id];
}

// A 3x3x3 box under an enclosing if, the plane declared alone and tested
// with > and <=.
__global__ void box_planes(const float *in, float *out, int nx, int ny, int nz) {
  int k = blockIdx.z;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int j = blockIdx.y * blockDim.y + threadIdx.y;
  if (i > 0 && i < nx - 1 && j > 0 && j < ny - 1 && k > 0 && k <= nz - 2) {
    float s = 0.f;
    for (int dz = -1; dz <= 1; dz++)
      for (int dy = -1; dy <= 1; dy++)
        for (int dx = -1; dx <= 1; dx++)
          s += in[((k + dz) * ny + (j + dy)) * nx + (i + dx)];
    out[(k * ny + j) * nx + i] = s * (1.0f / 27.0f);
  }
}
