// REQUIRES: cuda
// Guarded borders: a zero-padded 5-point Laplacian (double, ?: guards on
// each neighbour), an interior-only one through a size_t local, and a
// forward difference whose footprint is one-sided. The tile holds the
// input where the original's own guards let it read, zero elsewhere.
// RUN: forge-port propose %s --kernel laplace5 --block 32,8 --rules=smem-stencil-tiling --apply -o %t.zero.cu
// RUN: FileCheck %s --check-prefix=ZERO --match-full-lines --input-file=%t.zero.cu
// RUN: %nvcc -arch=sm_90 -ptx %t.zero.cu -o - | FileCheck %s --check-prefix=PTXD
// RUN: forge-port propose %s --kernel lap_interior --block 32,8 --rules=smem-stencil-tiling --apply -o %t.interior.cu
// RUN: FileCheck %s --check-prefix=INTERIOR --match-full-lines --input-file=%t.interior.cu
// RUN: %nvcc -arch=sm_90 -ptx %t.interior.cu -o - | FileCheck %s --check-prefix=PTX
// RUN: forge-port propose %s --kernel fwd_diff --block 32,8 --rules=smem-stencil-tiling --apply -o %t.fwd.cu
// RUN: FileCheck %s --check-prefix=FWD --match-full-lines --input-file=%t.fwd.cu
// RUN: %nvcc -arch=sm_90 -ptx %t.fwd.cu -o - | FileCheck %s --check-prefix=PTX
// PTX: bar.sync
// PTX: ld.shared.f32
// PTXD: bar.sync
// PTXD: ld.shared.f64

__global__ void laplace5(const double *u, double *lap, int nx, int ny) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int j = blockIdx.y * blockDim.y + threadIdx.y;
  if (i < nx && j < ny) {
    double c = u[j * nx + i];
    double l = i > 0 ? u[j * nx + i - 1] : 0.0;
    double r = i < nx - 1 ? u[j * nx + i + 1] : 0.0;
    double d = j > 0 ? u[(j - 1) * nx + i] : 0.0;
    double t = j < ny - 1 ? u[(j + 1) * nx + i] : 0.0;
    lap[j * nx + i] = l + r + d + t - 4.0 * c;
  }
}
// ZERO:   __shared__ double u_tile[10][34];
// ZERO:       long long e1 = 8 * (long long)blockIdx.y + t2 / 34 - 1;
// ZERO-NEXT:       long long e0 = 32 * (long long)blockIdx.x + t2 % 34 - 1;
// ZERO-NEXT:       u_v[k] = t2 < 340 && e1 >= 0 && e1 < (long long)ny && e0 >= 0 && e0 < (long long)nx ? u[e1 * nx + e0] : 0.0;
// ZERO:     double c = u_tile[threadIdx.y + 1][threadIdx.x + 1];
// ZERO-NEXT:     double l = i > 0 ? u_tile[threadIdx.y + 1][threadIdx.x] : 0.0;
// ZERO-NEXT:     double r = i < nx - 1 ? u_tile[threadIdx.y + 1][threadIdx.x + 2] : 0.0;
// ZERO-NEXT:     double d = j > 0 ? u_tile[threadIdx.y][threadIdx.x + 1] : 0.0;
// ZERO-NEXT:     double t = j < ny - 1 ? u_tile[threadIdx.y + 2][threadIdx.x + 1] : 0.0;

__global__ void lap_interior(const float *__restrict__ in, float *__restrict__ out, int w, int h) {
  const int x = threadIdx.x + blockIdx.x * blockDim.x;
  const int y = threadIdx.y + blockIdx.y * blockDim.y;
  if (x > 0 && x < w - 1 && y > 0 && y < h - 1) {
    size_t idx = (size_t)y * w + x;
    out[idx] = in[idx - w] + in[idx + w] + in[idx - 1] + in[idx + 1] - 4.f * in[idx];
  }
}
// INTERIOR:   __shared__ float in_tile[10][34];
// INTERIOR:       in_v[k] = t < 340 && e1 >= 0 && e1 < (long long)h && e0 >= 0 && e0 < (long long)w ? in[e1 * w + e0] : 0.0f;
// INTERIOR:     out[idx] = in_tile[threadIdx.y][threadIdx.x + 1] + in_tile[threadIdx.y + 2][threadIdx.x + 1] + in_tile[threadIdx.y + 1][threadIdx.x] + in_tile[threadIdx.y + 1][threadIdx.x + 2] - 4.f * in_tile[threadIdx.y + 1][threadIdx.x + 1];

__global__ void fwd_diff(const float *in, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x + 1 < w && y + 1 < h)
    out[y * w + x] = (in[y * w + x + 1] - in[y * w + x]) + (in[(y + 1) * w + x] - in[y * w + x]);
}
// FWD:   __shared__ float in_tile[9][33];
// FWD:       long long e1 = 8 * (long long)blockIdx.y + t / 33;
// FWD-NEXT:       long long e0 = 32 * (long long)blockIdx.x + t % 33;
// FWD-NEXT:       in_v[k] = t < 297 && e1 >= 0 && e1 < (long long)h && e0 >= 0 && e0 < (long long)w ? in[e1 * w + e0] : 0.0f;
// FWD:     out[y * w + x] = (in_tile[threadIdx.y][threadIdx.x + 1] - in_tile[threadIdx.y][threadIdx.x]) + (in_tile[threadIdx.y + 1][threadIdx.x] - in_tile[threadIdx.y][threadIdx.x]);
