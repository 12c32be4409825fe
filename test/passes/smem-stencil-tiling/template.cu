// REQUIRES: cuda
// A template radius stays symbolic: the tile is (2 * R + 128) elements,
// written in terms of R, and checked against the shared-memory limit for
// every instantiation in the file. A 2D template over the element type and
// the radius too; without an instantiation (or a spec tunable of the same
// name) the tile's size cannot be checked, and the rule declines.
// RUN: forge-port propose %s --kernel box1d --block 128 --rules=smem-stencil-tiling --apply -o %t.1d.cu
// RUN: FileCheck %s --check-prefix=BOX --match-full-lines --input-file=%t.1d.cu
// RUN: %nvcc -arch=sm_90 -ptx %t.1d.cu -o - | FileCheck %s --check-prefix=PTX
// RUN: forge-port propose %s --kernel box2d --block 32,8 --rules=smem-stencil-tiling --apply -o %t.2d.cu
// RUN: FileCheck %s --check-prefix=BOX2 --match-full-lines --input-file=%t.2d.cu
// RUN: %nvcc -arch=sm_90 -ptx %t.2d.cu -o - | FileCheck %s --check-prefix=PTX2
// RUN: not forge-port propose %s --kernel never --block 128 --rules=smem-stencil-tiling 2>&1 | FileCheck %s --check-prefix=NONE
// RUN: not forge-port propose %s --kernel box2d --block 32,32 --rules=smem-stencil-tiling -- -DBIG 2>&1 | FileCheck %s --check-prefix=BIG
// PTX: .shared .align 4 .b8 {{.*}}in_tile[544];
// PTX: bar.sync
// PTX: ld.shared.f32
// PTX2-DAG: .shared .align 4 .b8 {{.*}}in_tile[1360];
// PTX2-DAG: .shared .align 8 .b8 {{.*}}in_tile[3456];

template <int R>
__global__ void box1d(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float s = 0.f;
  for (int k = -R; k <= R; ++k) {
    int p = i + k;
    if (p >= 0 && p < n) s += in[p];
  }
  out[i] = s;
}
template __global__ void box1d<4>(const float *, float *, int);
// BOX:   __shared__ float in_tile[(2 * R + 128)];
// BOX-NEXT:   {
// BOX-NEXT:     float in_v[((2 * R + 128) + 127) / 128];
// BOX-NEXT: #pragma unroll
// BOX-NEXT:     for (int k2 = 0; k2 < ((2 * R + 128) + 127) / 128; ++k2) {
// BOX-NEXT:       int t = threadIdx.x + k2 * 128;
// BOX-NEXT:       long long e0 = 128 * (long long)blockIdx.x - R + t;
// BOX-NEXT:       in_v[k2] = t < (2 * R + 128) && e0 >= 0 && e0 < (long long)n ? in[e0] : 0.0f;
// BOX:     if (p >= 0 && p < n) s += in_tile[threadIdx.x + k + R];

template <typename T, int R>
__global__ void box2d(const T *in, T *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) {
    T s = 0;
    for (int dy = -R; dy <= R; ++dy)
      for (int dx = -R; dx <= R; ++dx) {
        int yy = min(max(y + dy, 0), h - 1), xx = min(max(x + dx, 0), w - 1);
        s += in[yy * w + xx];
      }
    out[y * w + x] = s;
  }
}
template __global__ void box2d<float, 1>(const float *, float *, int, int);
template __global__ void box2d<double, 2>(const double *, double *, int, int);
#ifdef BIG
template __global__ void box2d<double, 30>(const double *, double *, int, int);
#endif
// BOX2:   __shared__ T in_tile[(2 * R + 8)][(2 * R + 32)];
// BOX2:       long long e1c = e1 < 0 ? 0 : e1 > (long long)h - 1 ? (long long)h - 1 : e1;
// BOX2:         s += in_tile[threadIdx.y + dy + R][threadIdx.x + R + dx];

template <int R>
__global__ void never(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float s = 0.f;
  for (int k = -R; k <= R; ++k)
    if (i + k >= 0 && i + k < n)
      s += in[i + k];
  if (i < n) out[i] = s;
}
// NONE: forge-port: note: smem-stencil-tiling: not applicable: the tile of 'in' has 2 * R + 128 elements, which depends on template parameters that no instantiation in the file or value of the spec gives: its shared memory cannot be checked
// BIG: forge-port: note: smem-stencil-tiling: not applicable: the tile needs {{[0-9]+}} bytes of shared memory (0 already used), more than the 49152 bytes of static shared memory a block may have on sm_90
