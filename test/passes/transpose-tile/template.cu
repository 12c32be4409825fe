// REQUIRES: cuda
// A transpose over a template element type: the tile takes the kernel's
// own type parameter, and the explicit instantiations still compile.
// RUN: forge-port propose %s --kernel t_tmpl --block 32,8 --rules=transpose-tile --apply -o %t.cu
// RUN: FileCheck %s --check-prefix=FIX --match-full-lines --input-file=%t.cu
// RUN: %nvcc -arch=sm_90 -c %t.cu -o %t.o

template <typename T>
__global__ void t_tmpl(const T *in, T *out, int R, int C) {
  const int gx = blockIdx.x * blockDim.x + threadIdx.x;
  const int gy = blockIdx.y * blockDim.y + threadIdx.y;
  if (gx < C && gy < R) out[gx * R + gy] = in[gy * C + gx];
}
template __global__ void t_tmpl<float>(const float *, float *, int, int);
template __global__ void t_tmpl<double>(const double *, double *, int, int);
// FIX:      __global__ void t_tmpl(const T *in, T *out, int R, int C) {
// FIX:        __shared__ T forge_tile[32][32 + 1];
// FIX:        for (long long forge_y0 = 32 * (long long)blockIdx.y; forge_y0 < R; forge_y0 += 32 * (long long)gridDim.y) {
// FIX-NEXT:     for (long long forge_x0 = 32 * (long long)blockIdx.x; forge_x0 < C; forge_x0 += 32 * (long long)gridDim.x) {
// FIX:              const long long gx = forge_x0 + forge_e % 32, gy = forge_y0 + forge_e / 32;
// FIX-NEXT:         if (gx < C && gy < R)
// FIX-NEXT:           forge_tile[forge_e / 32][forge_e % 32] = in[gy * C + gx];
// FIX:                out[gx * R + gy] = forge_tile[forge_e % 32][forge_e / 32];
// FIX:      template __global__ void t_tmpl<double>(const double *, double *, int, int);
