// 1D texture references over linear memory, read with tex1Dfetch in kernels
// and in a __device__ helper, bound in the spellings of legacy code. The
// fix makes each a texture object that the kernels take as a parameter.
// REQUIRES: cuda
// RUN: forge-port port --checks=texture-references --to sm_90 --no-validate %s -o %t.cu > %t.log 2>&1
// RUN: FileCheck %s --check-prefix=VAL --input-file=%t.log
// RUN: FileCheck %s --check-prefix=IDX --input-file=%t.log
// RUN: FileCheck %s --check-prefix=SUM --input-file=%t.log
// SUM: 2 error(s), 0 warning(s) for sm_90; 2 fixed
// RUN: FileCheck %s --check-prefix=FIX --match-full-lines --input-file=%t.cu
// RUN: %nvcc -arch=sm_90 -c %t.cu -o %t.o
// The fixed file has no texture reference left.
// RUN: forge-port port --checks=texture-references --to sm_90 --no-validate %t.cu 2>&1 | FileCheck %s --check-prefix=AGAIN
// AGAIN: 0 error(s), 0 warning(s) for sm_90

#include <cstdio>

#define CHECK(call)                                                            \
  do {                                                                         \
    cudaError_t e_ = (call);                                                   \
    if (e_ != cudaSuccess)                                                     \
      printf("%s\n", cudaGetErrorString(e_));                                  \
  } while (0)

// The helpers go once before the first texture.
// FIX: // forge-port (texture-references): texture references were removed in CUDA 12;
// FIX: static inline __attribute__((unused)) cudaError_t forgeBindTexture(cudaTextureObject_t *tex, const void *ptr,
// FIX: #endif
// FIX: cudaTextureObject_t values = 0;
texture<float, 1, cudaReadModeElementType> values;
// VAL: [[@LINE-1]]:44: error: texture reference 'values': texture references were removed in CUDA 12 (CUDA 13 has none); use a texture object (cudaTextureObject_t, created with cudaCreateTextureObject and passed to the kernels that read it) [texture-references]
static texture<int, 1> indices;
// FIX: static cudaTextureObject_t indices = 0;
// IDX: [[@LINE-2]]:24: error: texture reference 'indices'

// A helper that reads the texture takes it as a parameter too, and so does
// every caller.
__device__ float load(int i) { return tex1Dfetch(values, i); }
// FIX: __device__ float load(int i, cudaTextureObject_t values) { return tex1Dfetch<float>(values, i); }
// VAL-DAG: [[@LINE-2]]:39: note: read here: becomes tex1Dfetch<float>(values, ...)
// VAL-DAG: [[@LINE-3]]:18: note: function 'load' takes the texture object as its new last parameter 'values'

__global__ void scale(float *out, int n) {
  // FIX: __global__ void scale(float *out, int n, cudaTextureObject_t values) {
  // VAL-DAG: [[@LINE-2]]:17: note: kernel 'scale' takes the texture object as its new last parameter 'values'
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = 2.0f * load(i);
  // FIX: out[i] = 2.0f * load(i, values);
}

// Two textures: the parameters and the arguments follow the declarations.
__global__ void gather(float *out, int n) {
  // FIX: __global__ void gather(float *out, int n, cudaTextureObject_t values, cudaTextureObject_t indices) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = tex1Dfetch(values, tex1Dfetch(indices, i));
  // FIX: out[i] = tex1Dfetch<float>(values, tex1Dfetch<int>(indices, i));
  // IDX-DAG: [[@LINE-2]]:33: note: read here: becomes tex1Dfetch<int>(indices, ...)
}

// No parameters before: '(void)' becomes the object alone.
__global__ void first(void) {
  // FIX: __global__ void first(cudaTextureObject_t values) {
  printf("%f\n", tex1Dfetch(values, 0));
}

template <int Stride> __global__ void strided(float *out, int n) {
  // FIX: template <int Stride> __global__ void strided(float *out, int n, cudaTextureObject_t values) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i * Stride < n)
    out[i] = tex1Dfetch(values, i * Stride);
  // FIX: out[i] = tex1Dfetch<float>(values, i * Stride);
}

int run(float *in, int *idx, float *out, int n) {
  // FIX: cudaChannelFormatDesc desc = cudaCreateChannelDesc<float>();
  // FIX-NEXT: // The settings go into the descriptor; their statements go.
  cudaChannelFormatDesc desc = cudaCreateChannelDesc<float>();
  values.filterMode = cudaFilterModePoint;
  values.normalized = false;
  // The settings go into the descriptor; their statements go.
  // The SDK's form, with the result checked in a macro's argument.
  CHECK(cudaBindTexture(0, values, in, n * sizeof(float)));
  // FIX: CHECK(forgeBindTexture(&values, in, cudaCreateChannelDesc<float>(), n * sizeof(float), forgeTextureDesc(cudaReadModeElementType)));
  // VAL-DAG: [[@LINE-2]]:9: note: bound here: becomes the creation of the texture object
  // The C form: a pointer to the reference and one to the descriptor.
  if (cudaBindTexture(NULL, &values, in, &desc, n * sizeof(float)) != cudaSuccess)
    return 1;
  // FIX: if (forgeBindTexture(&values, in, desc, n * sizeof(float), forgeTextureDesc(cudaReadModeElementType)) != cudaSuccess)
  cudaBindTexture(0, indices, idx, cudaCreateChannelDesc<int>(), n * sizeof(int));
  // FIX: forgeBindTexture(&indices, idx, cudaCreateChannelDesc<int>(), n * sizeof(int), forgeTextureDesc(cudaReadModeElementType));
  scale<<<(n + 255) / 256, 256>>>(out, n);
  // FIX: scale<<<(n + 255) / 256, 256>>>(out, n, values);
  // VAL-DAG: [[@LINE-2]]:3: note: launched here: the launch passes 'values'
  gather<<<(n + 255) / 256, 256>>>(out, n);
  // FIX: gather<<<(n + 255) / 256, 256>>>(out, n, values, indices);
  first<<<1, 1>>>();
  // FIX: first<<<1, 1>>>(values);
  strided<2><<<(n + 511) / 512, 256>>>(out, n);
  // FIX: strided<2><<<(n + 511) / 512, 256>>>(out, n, values);
  CHECK(cudaUnbindTexture(values));
  // FIX: CHECK(forgeUnbindTexture(&values));
  cudaUnbindTexture(&indices);
  // FIX: forgeUnbindTexture(&indices);
  return 0;
}
