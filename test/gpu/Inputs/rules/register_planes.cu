// 3D stencils over 3D blocks for stencil-register-rows' planes
// (test/gpu/rules/stencil-register-planes.cu).

// The 27-point box over the interior, one early return.
__global__ void box_interior(const float *in, float *out, int nx, int ny, int nz) {
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

// Clamped on every coordinate, weights from the offsets, size_t strides.
__global__ void smooth_clamped(const float *__restrict__ u, float *__restrict__ v, int nx, int ny,
                               int nz) {
  const int x = threadIdx.x + blockIdx.x * blockDim.x;
  const int y = threadIdx.y + blockIdx.y * blockDim.y;
  const int z = threadIdx.z + blockIdx.z * blockDim.z;
  if (x >= nx || y >= ny || z >= nz) return;
  const size_t sy = nx, sz = (size_t)nx * ny;
  float acc = 0.f;
  for (int c = -1; c <= 1; ++c) {
    int zz = min(max(z + c, 0), nz - 1);
    for (int b = -1; b <= 1; ++b) {
      int yy = min(max(y + b, 0), ny - 1);
      for (int a = -1; a <= 1; ++a) {
        int xx = min(max(x + a, 0), nx - 1);
        float w = (a == 0 ? 2.f : 1.f) * (b == 0 ? 2.f : 1.f) * (c == 0 ? 2.f : 1.f);
        acc += w * u[zz * sz + yy * sy + xx];
      }
    }
  }
  v[z * sz + y * sy + x] = acc / 64.f;
}

// Zero-padded: each tap tests its own neighbour; a plane-by-plane weight.
__global__ void box_zero(const float *in, float *out, int nx, int ny, int nz) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  int z = blockIdx.z * blockDim.z + threadIdx.z;
  if (x < nx && y < ny && z < nz) {
    float s = 0.f;
    for (int dz = -1; dz <= 1; ++dz)
      for (int dy = -1; dy <= 1; ++dy)
        for (int dx = -1; dx <= 1; ++dx) {
          int xx = x + dx, yy = y + dy, zz = z + dz;
          float t = (xx >= 0 && xx < nx && yy >= 0 && yy < ny && zz >= 0 && zz < nz)
                        ? in[(zz * ny + yy) * nx + xx]
                        : 0.f;
          s += (dz == 0 ? 0.5f : 0.25f) * t;
        }
    out[(z * ny + y) * nx + x] = s;
  }
}
