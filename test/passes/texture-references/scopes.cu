// Textures in a namespace and in an extern "C" block, a 3D texture, and a
// fetch in a kernel template whose index depends on the template argument.
// The helpers go at the top level (a template cannot have C linkage); host
// code names a namespace's texture with its qualifier, a kernel its
// parameter.
// REQUIRES: cuda
// RUN: forge-port port --checks=texture-references --to sm_90 --no-validate %s -o %t.cu 2>&1 | FileCheck %s --check-prefix=DIAG
// RUN: FileCheck %s --check-prefix=FIX --match-full-lines --input-file=%t.cu
// RUN: %nvcc -arch=sm_90 -c %t.cu -o %t.o
// DIAG: 3 error(s), 0 warning(s) for sm_90; 3 fixed

// FIX: #define FORGE_TEXTURE_OBJECT_HELPERS
// FIX: namespace ns { cudaTextureObject_t inNs = 0; __global__ void k(float *o, cudaTextureObject_t inNs) { o[0] = tex1Dfetch<float>(inNs, 0); } }
namespace ns { texture<float, 1> inNs; __global__ void k(float *o) { o[0] = tex1Dfetch(inNs, 0); } }
template <class T> __global__ void dep(T *o, int i) { o[0] = tex1Dfetch(ns::inNs, T(i)); }
// FIX: template <class T> __global__ void dep(T *o, int i, cudaTextureObject_t inNs) { o[0] = tex1Dfetch<float>(inNs, T(i)); }
texture<float4, 3> vol;
__global__ void v3(float4 *o) { o[0] = tex3D(vol, 0.f, 0.f, 0.f); }
// FIX: __global__ void v3(float4 *o, cudaTextureObject_t vol) { o[0] = tex3D<float4>(vol, 0.f, 0.f, 0.f); }
extern "C" { texture<int, 1> cTex; }
// FIX: extern "C" { cudaTextureObject_t cTex = 0; }
__global__ void kc(int *o) { o[0] = tex1Dfetch(cTex, 1); }
void run(float *p, cudaArray_t a) {
  cudaBindTexture(0, ns::inNs, p, 4);
  // FIX: forgeBindTexture(&ns::inNs, p, cudaCreateChannelDesc<float>(), 4, forgeTextureDesc(cudaReadModeElementType));
  ns::k<<<1, 1>>>(p);
  dep<float><<<1, 1>>>(p, 1);
  // FIX: ns::k<<<1, 1>>>(p, ns::inNs);
  // FIX: dep<float><<<1, 1>>>(p, 1, ns::inNs);
  vol.addressMode[2] = cudaAddressModeMirror;
  cudaBindTextureToArray(vol, a);
  // FIX: forgeBindTextureToArray(&vol, a, forgeTextureDesc(cudaReadModeElementType, cudaFilterModePoint, 0, cudaAddressModeClamp, cudaAddressModeClamp, cudaAddressModeMirror));
  v3<<<1, 1>>>((float4 *)p);
  cudaBindTexture(0, cTex, (int *)p, 4);
  kc<<<1, 1>>>((int *)p);
  // FIX: kc<<<1, 1>>>((int *)p, cTex);
}
