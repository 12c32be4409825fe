// REQUIRES: cuda
// Coefficient buffers beside the staged tile: a 3D 7-point stencil with
// explicit taps c[0..3] (in registers, no loops to unroll), and a 9 x 9
// filter whose 81 values are more than the 64 a thread keeps in registers
// (in shared memory, loaded by the block before the tile's barrier).
// RUN: forge-port propose %s --kernel heat3d --block 32,4,4 --rules=smem-stencil-tiling -o %t3.cu 2>&1 | FileCheck %s --check-prefix=NOTE3
// RUN: FileCheck %s --check-prefix=FIX3 --match-full-lines --input-file=%t3.cu
// RUN: %nvcc -arch=sm_90 -ptx %t3.cu -o %t3.ptx
// RUN: forge-port propose %s --kernel conv9 --block 16,16 --rules=smem-stencil-tiling -o %t9.cu 2>&1 | FileCheck %s --check-prefix=NOTE9
// RUN: FileCheck %s --check-prefix=FIX9 --match-full-lines --input-file=%t9.cu
// RUN: %nvcc -arch=sm_90 -ptx %t9.cu -o - | FileCheck %s --check-prefix=PTX9
// NOTE3: {{.*}}stage 'u' in a 6 x 6 x 34 shared-memory tile (the 32 x 4 x 4 block's outputs and their halo), coefficients 'c' (4 values) in registers
// NOTE9: {{.*}}stage 'in' in a 24 x 24 shared-memory tile (the 16 x 16 block's outputs and their halo), coefficients 'filt' (81 values) in shared memory
// PTX9: .shared .align 4 .b8 {{.*}}filt_s[324];
// PTX9: bar.sync
// PTX9-NOT: ld.local

__global__ void heat3d(const float *u, const float *c, float *v, int nx, int ny, int nz) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  int z = blockIdx.z * blockDim.z + threadIdx.z;
  if (x > 0 && x < nx - 1 && y > 0 && y < ny - 1 && z > 0 && z < nz - 1) {
    size_t i = ((size_t)z * ny + y) * nx + x;
    v[i] = c[0] * u[i] + c[1] * (u[i - 1] + u[i + 1]) + c[2] * (u[i - nx] + u[i + nx]) +
           c[3] * (u[i - (size_t)nx * ny] + u[i + (size_t)nx * ny]);
  }
}
// FIX3:   // Coefficients loaded once: 'c' (4 values) in registers.
// FIX3-NEXT:   float c_c[4];
// FIX3-NEXT: #pragma unroll
// FIX3-NEXT:   for (int c2 = 0; c2 < 4; ++c2)
// FIX3-NEXT:     c_c[c2] = c[c2];
// FIX3:     v[i] = c_c[0] * u_tile[threadIdx.z + 1][threadIdx.y + 1][threadIdx.x + 1] + c_c[1] * {{.*}}

__global__ void conv9(const float *in, const float *filt, float *out, int h, int w) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) {
    float acc = 0.0f;
    for (int i = -4; i <= 4; ++i)
      for (int j = -4; j <= 4; ++j) {
        int yy = y + i, xx = x + j;
        if (yy >= 0 && yy < h && xx >= 0 && xx < w)
          acc += filt[(i + 4) * 9 + (j + 4)] * in[(size_t)yy * w + xx];
      }
    out[(size_t)y * w + x] = acc;
  }
}
// FIX9:   // Coefficients loaded once: 'filt' (81 values) in shared memory.
// FIX9-NEXT:   __shared__ float filt_s[81];
// FIX9-NEXT:   for (int c = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z); c < 81;
// FIX9-NEXT:        c += blockDim.x * blockDim.y * blockDim.z)
// FIX9-NEXT:     filt_s[c] = filt[c];
// FIX9:   __syncthreads();
// FIX9:           acc += filt_s[(i + 4) * 9 + (j + 4)] * in_tile[threadIdx.y + i + 4][threadIdx.x + j + 4];
