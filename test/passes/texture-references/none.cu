// Code without texture references: nothing to report. Texture objects,
// and the names 'texture' and 'surface' as locals and members, are left
// alone by the prelude's declarations of the removed API.
// REQUIRES: cuda
// RUN: forge-port port --checks=texture-references --to sm_90 --no-validate %s -o %t.cu 2>&1 | FileCheck %s --implicit-check-not='{{warning|error|note}}:'
// CHECK: 0 error(s), 0 warning(s) for sm_90
// RUN: diff %s %t.cu
// RUN: %nvcc -arch=sm_90 -c %t.cu -o %t.o

struct Material {
  cudaTextureObject_t texture;
  int surface;
};

__global__ void shade(const Material *m, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  cudaTextureObject_t texture = m->texture;
  if (i < n)
    out[i] = tex1Dfetch<float>(texture, i) + tex2D<float>(texture, 0.5f, 0.5f) + m->surface;
}

void run(Material *m, float *out, int n) { shade<<<(n + 255) / 256, 256>>>(m, out, n); }
