//===- Frontend/NvccCompatPrelude.cpp - What nvcc supplies and Clang lacks -===//
///
/// \file
/// The header force-included into every parse. Each part answers one cause
/// of real CUDA files failing under Clang while nvcc accepts them (see
/// DESIGN.md, "What real CUDA code needs from the frontend"). It is only
/// parsed, never compiled, so the bodies need only the right types.
///
//===----------------------------------------------------------------------===//
#include "forge/Frontend/CudaInvocation.h"

static const char Prelude[] = R"forge(
#pragma once
#pragma clang system_header

/* Implicit host includes: nvcc's headers bring these in. */
#ifdef __cplusplus
#include <cmath>
#include <math.h> /* the global isfinite, isnan, ... of host code */
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <climits>
#endif

/* Host min/max: nvcc makes CUDA's overloads callable from host code; Clang's
   wrapper makes them device-only. Non-templates, like nvcc's, so that
   'using std::min; min(a, b)' still resolves as it does with nvcc. */
#define __FORGE_HOST_MINMAX(R, A, B)                                           \
  static inline __attribute__((host)) R min(A a, B b) { return a < b ? (R)a : (R)b; } \
  static inline __attribute__((host)) R max(A a, B b) { return a > b ? (R)a : (R)b; }
__FORGE_HOST_MINMAX(int, int, int)
__FORGE_HOST_MINMAX(unsigned int, unsigned int, unsigned int)
__FORGE_HOST_MINMAX(unsigned int, int, unsigned int)
__FORGE_HOST_MINMAX(unsigned int, unsigned int, int)
__FORGE_HOST_MINMAX(long, long, long)
__FORGE_HOST_MINMAX(unsigned long, unsigned long, unsigned long)
__FORGE_HOST_MINMAX(unsigned long, long, unsigned long)
__FORGE_HOST_MINMAX(unsigned long, unsigned long, long)
__FORGE_HOST_MINMAX(long long, long long, long long)
__FORGE_HOST_MINMAX(unsigned long long, unsigned long long, unsigned long long)
__FORGE_HOST_MINMAX(unsigned long long, long long, unsigned long long)
__FORGE_HOST_MINMAX(unsigned long long, unsigned long long, long long)
__FORGE_HOST_MINMAX(float, float, float)
__FORGE_HOST_MINMAX(double, double, double)
__FORGE_HOST_MINMAX(double, float, double)
__FORGE_HOST_MINMAX(double, double, float)
#undef __FORGE_HOST_MINMAX

/* Cache-hinted loads and stores that Clang's wrapper lacks (it has __ldg,
   __ldcs and __stwt). Templates, so a Clang that adds the real overloads
   wins overload resolution and nothing is redefined. */
#ifdef __cplusplus
template <typename __T>
static inline __attribute__((device)) __T __ldca(const __T *__p) { return *__p; }
template <typename __T>
static inline __attribute__((device)) __T __ldlu(const __T *__p) { return *__p; }
template <typename __T>
static inline __attribute__((device)) void __stcs(__T *__p, __T __v) { *__p = __v; }
template <typename __T>
static inline __attribute__((device)) void __stcg(__T *__p, __T __v) { *__p = __v; }
template <typename __T>
static inline __attribute__((device)) void __stwb(__T *__p, __T __v) { *__p = __v; }
#endif

/* Texture and surface references, removed in CUDA 12: declared again so
   that legacy code parses into an AST the texture-references pass can
   rewrite (to texture objects) instead of failing at 'no template named
   texture'. Only with a toolkit that lacks them (CUDART_VERSION >= 12000;
   Clang's CUDA wrapper includes cuda_runtime.h before this header); every
   declaration is annotated "forge-removed-in-cuda12", which is how the pass
   recognises them. -DFORGE_NO_LEGACY_TEXTURE turns them off for code that
   names something 'texture' or 'surface' at global scope. Shapes follow
   CUDA 11's cuda_texture_types.h and cuda_runtime.h. */
#if defined(__cplusplus) && defined(CUDART_VERSION) && CUDART_VERSION >= 12000 && \
    !defined(FORGE_NO_LEGACY_TEXTURE)
#define __FORGE_REMOVED __attribute__((annotate("forge-removed-in-cuda12")))
struct __FORGE_REMOVED textureReference {
  int normalized;
  enum cudaTextureFilterMode filterMode;
  enum cudaTextureAddressMode addressMode[3];
  struct cudaChannelFormatDesc channelDesc;
  int sRGB;
  unsigned int maxAnisotropy;
  enum cudaTextureFilterMode mipmapFilterMode;
  float mipmapLevelBias, minMipmapLevelClamp, maxMipmapLevelClamp;
  int disableTrilinearOptimization;
  int __cudaReserved[14];
};
struct __FORGE_REMOVED surfaceReference {
  struct cudaChannelFormatDesc channelDesc;
};
template <class __T, enum cudaTextureReadMode __M> struct __forge_tex_value { typedef __T type; };
#define __FORGE_NORM(I, F) \
  template <> struct __forge_tex_value<I, cudaReadModeNormalizedFloat> { typedef F type; };
__FORGE_NORM(char, float) __FORGE_NORM(signed char, float) __FORGE_NORM(unsigned char, float)
__FORGE_NORM(short, float) __FORGE_NORM(unsigned short, float)
__FORGE_NORM(char1, float1) __FORGE_NORM(uchar1, float1) __FORGE_NORM(short1, float1) __FORGE_NORM(ushort1, float1)
__FORGE_NORM(char2, float2) __FORGE_NORM(uchar2, float2) __FORGE_NORM(short2, float2) __FORGE_NORM(ushort2, float2)
__FORGE_NORM(char4, float4) __FORGE_NORM(uchar4, float4) __FORGE_NORM(short4, float4) __FORGE_NORM(ushort4, float4)
#undef __FORGE_NORM
template <class __T, int __dim = 1, enum cudaTextureReadMode __mode = cudaReadModeElementType>
struct __FORGE_REMOVED __attribute__((device_builtin_texture_type)) texture : public textureReference {
  texture(int __norm = 0, enum cudaTextureFilterMode __f = cudaFilterModePoint,
          enum cudaTextureAddressMode __a = cudaAddressModeClamp);
  texture(int __norm, enum cudaTextureFilterMode __f, enum cudaTextureAddressMode __a,
          struct cudaChannelFormatDesc __desc);
};
template <class __T, int __dim = 1>
struct __FORGE_REMOVED __attribute__((device_builtin_surface_type)) surface : public surfaceReference {
  surface();
  surface(struct cudaChannelFormatDesc __desc);
};
#define __FORGE_TEX template <class __T, int __dim, enum cudaTextureReadMode __M>
#define __FORGE_TEXREF const texture<__T, __dim, __M> &
#define __FORGE_HOSTFN __attribute__((host)) __FORGE_REMOVED
__FORGE_TEX __FORGE_HOSTFN cudaError_t cudaBindTexture(size_t *, __FORGE_TEXREF, const void *,
    const struct cudaChannelFormatDesc &, size_t = 0xffffffffu);
__FORGE_TEX __FORGE_HOSTFN cudaError_t cudaBindTexture(size_t *, __FORGE_TEXREF, const void *, size_t = 0xffffffffu);
__FORGE_HOSTFN cudaError_t cudaBindTexture(size_t *, const struct textureReference *, const void *,
    const struct cudaChannelFormatDesc *, size_t = 0xffffffffu);
__FORGE_TEX __FORGE_HOSTFN cudaError_t cudaBindTexture2D(size_t *, __FORGE_TEXREF, const void *,
    const struct cudaChannelFormatDesc &, size_t, size_t, size_t);
__FORGE_TEX __FORGE_HOSTFN cudaError_t cudaBindTexture2D(size_t *, __FORGE_TEXREF, const void *, size_t, size_t, size_t);
__FORGE_HOSTFN cudaError_t cudaBindTexture2D(size_t *, const struct textureReference *, const void *,
    const struct cudaChannelFormatDesc *, size_t, size_t, size_t);
__FORGE_TEX __FORGE_HOSTFN cudaError_t cudaBindTextureToArray(__FORGE_TEXREF, cudaArray_const_t,
    const struct cudaChannelFormatDesc &);
__FORGE_TEX __FORGE_HOSTFN cudaError_t cudaBindTextureToArray(__FORGE_TEXREF, cudaArray_const_t);
__FORGE_HOSTFN cudaError_t cudaBindTextureToArray(const struct textureReference *, cudaArray_const_t,
    const struct cudaChannelFormatDesc *);
__FORGE_TEX __FORGE_HOSTFN cudaError_t cudaUnbindTexture(__FORGE_TEXREF);
__FORGE_HOSTFN cudaError_t cudaUnbindTexture(const struct textureReference *);
__FORGE_HOSTFN cudaError_t cudaGetTextureReference(const struct textureReference **, const void *);
__FORGE_HOSTFN cudaError_t cudaGetTextureAlignmentOffset(size_t *, const struct textureReference *);
template <class __T, int __dim> __FORGE_HOSTFN cudaError_t cudaBindSurfaceToArray(const surface<__T, __dim> &,
    cudaArray_const_t);
template <class __T, int __dim> __FORGE_HOSTFN cudaError_t cudaBindSurfaceToArray(const surface<__T, __dim> &,
    cudaArray_const_t, const struct cudaChannelFormatDesc &);
__FORGE_HOSTFN cudaError_t cudaBindSurfaceToArray(const struct surfaceReference *, cudaArray_const_t,
    const struct cudaChannelFormatDesc *);
#define __FORGE_DEVFN __attribute__((device)) __FORGE_REMOVED
#define __FORGE_VAL typename __forge_tex_value<__T, __M>::type
__FORGE_TEX __FORGE_DEVFN __FORGE_VAL tex1Dfetch(texture<__T, __dim, __M>, int);
__FORGE_TEX __FORGE_DEVFN __FORGE_VAL tex1D(texture<__T, __dim, __M>, float);
__FORGE_TEX __FORGE_DEVFN __FORGE_VAL tex2D(texture<__T, __dim, __M>, float, float);
__FORGE_TEX __FORGE_DEVFN __FORGE_VAL tex3D(texture<__T, __dim, __M>, float, float, float);
__FORGE_TEX __FORGE_DEVFN __FORGE_VAL tex1DLayered(texture<__T, __dim, __M>, float, int);
__FORGE_TEX __FORGE_DEVFN __FORGE_VAL tex2DLayered(texture<__T, __dim, __M>, float, float, int);
__FORGE_TEX __FORGE_DEVFN __FORGE_VAL texCubemap(texture<__T, __dim, __M>, float, float, float);
__FORGE_TEX __FORGE_DEVFN __FORGE_VAL tex1DLod(texture<__T, __dim, __M>, float, float);
__FORGE_TEX __FORGE_DEVFN __FORGE_VAL tex2DLod(texture<__T, __dim, __M>, float, float, float);
template <class __T, int __dim> __FORGE_DEVFN __T surf1Dread(surface<__T, __dim>, int, enum cudaSurfaceBoundaryMode = cudaBoundaryModeTrap);
template <class __V, class __T, int __dim> __FORGE_DEVFN void surf1Dread(__V *, surface<__T, __dim>, int, enum cudaSurfaceBoundaryMode = cudaBoundaryModeTrap);
template <class __V, class __T, int __dim> __FORGE_DEVFN void surf1Dwrite(__V, surface<__T, __dim>, int, enum cudaSurfaceBoundaryMode = cudaBoundaryModeTrap);
template <class __V, class __T, int __dim> __FORGE_DEVFN void surf2Dread(__V *, surface<__T, __dim>, int, int, enum cudaSurfaceBoundaryMode = cudaBoundaryModeTrap);
template <class __V, class __T, int __dim> __FORGE_DEVFN void surf2Dwrite(__V, surface<__T, __dim>, int, int, enum cudaSurfaceBoundaryMode = cudaBoundaryModeTrap);
template <class __V, class __T, int __dim> __FORGE_DEVFN void surf3Dread(__V *, surface<__T, __dim>, int, int, int, enum cudaSurfaceBoundaryMode = cudaBoundaryModeTrap);
template <class __V, class __T, int __dim> __FORGE_DEVFN void surf3Dwrite(__V, surface<__T, __dim>, int, int, int, enum cudaSurfaceBoundaryMode = cudaBoundaryModeTrap);
#undef __FORGE_TEX
#undef __FORGE_TEXREF
#undef __FORGE_HOSTFN
#undef __FORGE_DEVFN
#undef __FORGE_VAL
#undef __FORGE_REMOVED
#endif
)forge";

llvm::StringRef forge::frontend::nvccCompatPrelude() {
  return llvm::StringRef(Prelude, sizeof(Prelude) - 1);
}
