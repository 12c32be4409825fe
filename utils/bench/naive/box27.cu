// A 27-point box filter over the interior of a volume, a 3D block per thread
// tile and one early return on the thread's position.
__global__ void box27(const float *in, float *out, int nx, int ny, int nz) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int j = blockIdx.y * blockDim.y + threadIdx.y;
  int k = blockIdx.z * blockDim.z + threadIdx.z;
  if (i < 1 || j < 1 || k < 1 || i >= nx - 1 || j >= ny - 1 || k >= nz - 1) return;
  float s = 0.f;
  for (int dz = -1; dz <= 1; dz++)
    for (int dy = -1; dy <= 1; dy++)
      for (int dx = -1; dx <= 1; dx++)
        s += in[((k + dz) * ny + (j + dy)) * nx + (i + dx)];
  out[(k * ny + j) * nx + i] = s / 27.f;
}
