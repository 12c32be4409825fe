// REQUIRES: cuda
// 1D stencils with explicit neighbours: radius 3 with an interior-only
// early return, clamped neighbours through an unsigned index, a second
// input read only at the centre (read directly, not tiled), and two
// stencil inputs with different radii (each tiled).
// RUN: forge-port propose %s --kernel st1d_r3 --block 256 --rules=smem-stencil-tiling --apply -o %t.r3.cu
// RUN: FileCheck %s --check-prefix=R3 --match-full-lines --input-file=%t.r3.cu
// RUN: %nvcc -arch=sm_90 -ptx %t.r3.cu -o - | FileCheck %s --check-prefix=PTX
// RUN: forge-port propose %s --kernel clamp1d --block 256 --rules=smem-stencil-tiling --apply -o %t.clamp.cu
// RUN: FileCheck %s --check-prefix=CLAMP --match-full-lines --input-file=%t.clamp.cu
// RUN: %nvcc -arch=sm_90 -ptx %t.clamp.cu -o - | FileCheck %s --check-prefix=PTX
// RUN: forge-port propose %s --kernel two_inputs --block 256 --rules=smem-stencil-tiling --apply -o %t.two.cu
// RUN: FileCheck %s --check-prefix=TWO --match-full-lines --input-file=%t.two.cu
// RUN: %nvcc -arch=sm_90 -ptx %t.two.cu -o - | FileCheck %s --check-prefix=PTX
// RUN: forge-port propose %s --kernel two_stencils --block 256 --rules=smem-stencil-tiling --apply -o %t.both.cu 2>&1 \
// RUN:   | FileCheck %s --check-prefix=BOTHNOTE
// RUN: FileCheck %s --check-prefix=BOTH --match-full-lines --input-file=%t.both.cu
// RUN: %nvcc -arch=sm_90 -ptx %t.both.cu -o - | FileCheck %s --check-prefix=PTX
// PTX: bar.sync
// PTX: ld.shared.f32

__global__ void st1d_r3(const float *in, float *out, int n) {
  int i = threadIdx.x + blockIdx.x * blockDim.x;
  if (i < 3 || i >= n - 3) return;
  out[i] = 0.1f * in[i - 3] + 0.2f * in[i - 2] + 0.3f * in[i - 1] + 0.4f * in[i] +
           0.3f * in[i + 1] + 0.2f * in[i + 2] + 0.1f * in[i + 3];
}
// R3:   __shared__ float in_tile[262];
// R3:       long long e0 = 256 * (long long)blockIdx.x + t - 3;
// R3-NEXT:       in_v[k] = t < 262 && e0 >= 0 && e0 < (long long)n ? in[e0] : 0.0f;
// R3:   out[i] = 0.1f * in_tile[threadIdx.x] + 0.2f * in_tile[threadIdx.x + 1] + 0.3f * in_tile[threadIdx.x + 2] + 0.4f * in_tile[threadIdx.x + 3] +
// R3-NEXT:            0.3f * in_tile[threadIdx.x + 4] + 0.2f * in_tile[threadIdx.x + 5] + 0.1f * in_tile[threadIdx.x + 6];

__global__ void clamp1d(const float *in, float *out, int n) {
  unsigned i = threadIdx.x + blockDim.x * blockIdx.x;
  if (i < n) {
    int l = max((int)i - 1, 0), r = min((int)i + 1, n - 1);
    out[i] = 0.25f * in[l] + 0.5f * in[i] + 0.25f * in[r];
  }
}
// CLAMP:   __shared__ float in_tile[258];
// CLAMP:       long long e0c = e0 < 0 ? 0 : e0 > (long long)n - 1 ? (long long)n - 1 : e0;
// CLAMP-NEXT:       in_v[k] = t < 258 && 0 <= (long long)n - 1 ? in[e0c] : 0.0f;
// CLAMP:     out[i] = 0.25f * in_tile[threadIdx.x] + 0.5f * in_tile[threadIdx.x + 1] + 0.25f * in_tile[threadIdx.x + 2];

__global__ void two_inputs(const float *a, const float *b, float *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= 1 && i < n - 1)
    c[i] = a[i - 1] + a[i + 1] + 2.0f * b[i];
}
// TWO:   __shared__ float a_tile[258];
// TWO:       a_v[k] = t < 258 && e0 >= 0 && e0 < (long long)n ? a[e0] : 0.0f;
// TWO:     c[i] = a_tile[threadIdx.x] + a_tile[threadIdx.x + 2] + 2.0f * b[i];

__global__ void two_stencils(const float *a, const float *b, float *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= 2 && i < n - 2)
    c[i] = a[i - 1] * b[i - 2] + a[i + 1] * b[i + 2];
}
// BOTHNOTE: forge-port: note: applied expert:smem-stencil-tiling: stage 'a' and 'b' in a 258-element and a 260-element shared-memory tile (the 256-thread block's outputs and their halo)
// BOTH:   __shared__ float a_tile[258];
// BOTH-NEXT:   __shared__ float b_tile[260];
// BOTH:       a_v[k] = t < 258 && e0 >= 1 && e0 < (long long)n - 1 ? a[e0] : 0.0f;
// BOTH:       b_v[k2] = t2 < 260 && e02 >= 0 && e02 < (long long)n ? b[e02] : 0.0f;
// BOTH:     c[i] = a_tile[threadIdx.x] * b_tile[threadIdx.x] + a_tile[threadIdx.x + 2] * b_tile[threadIdx.x + 4];
