// 7-point Laplacian of a float volume, one z-plane per block (z is
// blockIdx.z; the block is 2D), interior points only, the offsets through
// size_t locals declared together.
__global__ void lap_planes(const float *in, float *out, int nx, int ny, int nz) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y,
      z = blockIdx.z;
  if (x < 1 || y < 1 || z < 1 || x >= nx - 1 || y >= ny - 1 || z >= nz - 1) return;
  size_t s = (size_t)nx * ny, id = z * s + y * nx + x;
  out[id] = in[id - 1] + in[id + 1] + in[id - nx] + in[id + nx] + in[id - s] + in[id + s] -
            6 * in[id];
}
