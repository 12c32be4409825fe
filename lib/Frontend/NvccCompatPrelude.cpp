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
)forge";

llvm::StringRef forge::frontend::nvccCompatPrelude() {
  return llvm::StringRef(Prelude, sizeof(Prelude) - 1);
}
