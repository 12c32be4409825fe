// A small stand-in for the CUDA 13 runtime headers, so that most lit tests
// parse in milliseconds and do not depend on the installed toolkit. Written
// for Kernel Forge's tests; it declares only what the tests use, with the
// CUDA 13 API (no legacy warp intrinsics, no removed cudaDeviceProp fields).
#pragma once

#define __host__ __attribute__((host))
#define __device__ __attribute__((device))
#define __global__ __attribute__((global))
#define __shared__ __attribute__((shared))
#define __constant__ __attribute__((constant))
#define __managed__ __attribute__((managed))
#define __grid_constant__ __attribute__((grid_constant))
#define __launch_bounds__(...) __attribute__((launch_bounds(__VA_ARGS__)))
#define __cluster_dims__(...) __attribute__((cluster_dims(__VA_ARGS__)))
#define __forceinline__ inline __attribute__((always_inline))
#define __restrict__ __restrict

typedef __SIZE_TYPE__ size_t;

struct uint3 { unsigned x, y, z; };
struct dim3 {
  unsigned x, y, z;
  __host__ __device__ constexpr dim3(unsigned x = 1, unsigned y = 1, unsigned z = 1)
      : x(x), y(y), z(z) {}
  __host__ __device__ constexpr dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
};
struct float2 { float x, y; };
struct float4 { float x, y, z, w; };
struct int4 { int x, y, z, w; };
struct uint4 { unsigned x, y, z, w; };

struct __cuda_builtin_threadIdx_t { unsigned x, y, z; };
extern const __device__ __cuda_builtin_threadIdx_t threadIdx, blockIdx, blockDim, gridDim;
extern const __device__ int warpSize;

typedef struct CUstream_st *cudaStream_t;
typedef enum cudaError { cudaSuccess = 0, cudaErrorInvalidValue = 1 } cudaError_t;
enum cudaMemcpyKind { cudaMemcpyHostToDevice = 1, cudaMemcpyDeviceToHost = 2, cudaMemcpyDeviceToDevice = 3 };
enum cudaFuncAttribute { cudaFuncAttributeMaxDynamicSharedMemorySize = 8 };
enum cudaDeviceAttr { cudaDevAttrMultiProcessorCount = 16, cudaDevAttrClockRate = 13,
                      cudaDevAttrMemoryClockRate = 36, cudaDevAttrL2CacheSize = 38 };

struct cudaDeviceProp {
  char name[256];
  int multiProcessorCount;
  size_t sharedMemPerBlock;
  size_t sharedMemPerBlockOptin;
  int l2CacheSize;
  int major, minor;
  int warpSize;
};

struct cudaLaunchAttribute;
struct cudaLaunchConfig_t {
  dim3 gridDim;
  dim3 blockDim;
  size_t dynamicSmemBytes;
  cudaStream_t stream;
  cudaLaunchAttribute *attrs;
  unsigned numAttrs;
};

extern "C" {
unsigned __cudaPushCallConfiguration(dim3 gridDim, dim3 blockDim, size_t sharedMem = 0,
                                     cudaStream_t stream = 0);
cudaError_t cudaConfigureCall(dim3 gridDim, dim3 blockDim, size_t sharedMem = 0,
                              cudaStream_t stream = 0);
cudaError_t cudaMalloc(void **p, size_t bytes);
cudaError_t cudaFree(void *p);
cudaError_t cudaMemcpy(void *dst, const void *src, size_t bytes, cudaMemcpyKind kind);
cudaError_t cudaDeviceSynchronize(void);
cudaError_t cudaGetLastError(void);
cudaError_t cudaGetDeviceProperties(cudaDeviceProp *prop, int device);
cudaError_t cudaDeviceGetAttribute(int *value, cudaDeviceAttr attr, int device);
cudaError_t cudaFuncSetAttribute(const void *func, cudaFuncAttribute attr, int value);
cudaError_t cudaLaunchKernel(const void *func, dim3 gridDim, dim3 blockDim, void **args,
                             size_t sharedMem, cudaStream_t stream);
cudaError_t cudaLaunchCooperativeKernel(const void *func, dim3 gridDim, dim3 blockDim,
                                        void **args, size_t sharedMem, cudaStream_t stream);
cudaError_t cudaLaunchKernelExC(const cudaLaunchConfig_t *config, const void *func, void **args);
}

// cuda_runtime.h's typed overload: cudaMalloc(&floatPtr, bytes).
template <class T> static inline __host__ cudaError_t cudaMalloc(T **p, size_t bytes) {
  return cudaMalloc((void **)(void *)p, bytes);
}
template <class T>
static inline __host__ cudaError_t cudaLaunchKernel(T *func, dim3 gridDim, dim3 blockDim,
                                                    void **args, size_t sharedMem = 0,
                                                    cudaStream_t stream = 0) {
  return cudaLaunchKernel((const void *)func, gridDim, blockDim, args, sharedMem, stream);
}
template <class T>
static inline __host__ cudaError_t cudaLaunchCooperativeKernel(T *func, dim3 gridDim,
                                                               dim3 blockDim, void **args,
                                                               size_t sharedMem = 0,
                                                               cudaStream_t stream = 0) {
  return cudaLaunchCooperativeKernel((const void *)func, gridDim, blockDim, args, sharedMem,
                                     stream);
}
template <typename... ExpTypes, typename... ActTypes>
static inline __host__ cudaError_t cudaLaunchKernelEx(const cudaLaunchConfig_t *config,
                                                      void (*kernel)(ExpTypes...),
                                                      ActTypes &&...args) {
  return cudaLaunchKernelExC(config, (const void *)kernel, nullptr);
}
template <class T>
static inline __host__ cudaError_t cudaFuncSetAttribute(T *func, cudaFuncAttribute attr,
                                                        int value) {
  return cudaFuncSetAttribute((const void *)func, attr, value);
}

__device__ void __syncthreads(void);
__device__ void __syncwarp(unsigned mask = 0xffffffffu);
__device__ unsigned __activemask(void);
__device__ float __shfl_sync(unsigned mask, float v, int lane, int width = 32);
__device__ int __shfl_sync(unsigned mask, int v, int lane, int width = 32);
__device__ float __shfl_down_sync(unsigned mask, float v, unsigned delta, int width = 32);
__device__ int __shfl_down_sync(unsigned mask, int v, unsigned delta, int width = 32);
__device__ float __shfl_up_sync(unsigned mask, float v, unsigned delta, int width = 32);
__device__ int __shfl_up_sync(unsigned mask, int v, unsigned delta, int width = 32);
__device__ float __shfl_xor_sync(unsigned mask, float v, int lane_mask, int width = 32);
__device__ int __shfl_xor_sync(unsigned mask, int v, int lane_mask, int width = 32);
__device__ int __any_sync(unsigned mask, int pred);
__device__ int __all_sync(unsigned mask, int pred);
__device__ unsigned __ballot_sync(unsigned mask, int pred);
__device__ float atomicAdd(float *address, float val);
__device__ int atomicAdd(int *address, int val);
__device__ float __ldg(const float *p);
__device__ int __ldg(const int *p);
__device__ double atomicAdd(double *address, double val);
__device__ unsigned atomicAdd(unsigned *address, unsigned val);
__device__ unsigned long long atomicAdd(unsigned long long *address, unsigned long long val);
__device__ int atomicSub(int *address, int val);
__device__ int atomicMax(int *address, int val);
__device__ int atomicMin(int *address, int val);
__device__ unsigned atomicInc(unsigned *address, unsigned val);
__device__ int atomicOr(int *address, int val);
__device__ float atomicExch(float *address, float val);
__device__ int atomicCAS(int *address, int compare, int val);
// Device min/max and the math functions kernels use, as CUDA declares them.
__device__ int min(int, int);
__device__ int max(int, int);
__device__ unsigned min(unsigned, unsigned);
__device__ unsigned max(unsigned, unsigned);
__device__ long long min(long long, long long);
__device__ long long max(long long, long long);
__device__ float fminf(float, float);
__device__ float fabsf(float);
__device__ float fmaf(float, float, float);
__device__ int abs(int);
__device__ int __float_as_int(float);
__device__ float __int_as_float(int);
__device__ float __uint_as_float(unsigned);
__device__ float sqrtf(float);
__device__ float expf(float);
__device__ float fmaxf(float, float);

// Dynamic parallelism: what Clang calls for a device-side <<<>>>.
extern "C" __device__ void *cudaGetParameterBuffer(size_t alignment, size_t size);
extern "C" __device__ cudaError_t cudaLaunchDevice(void *func, void *parameterBuffer,
                                                   dim3 gridDimension, dim3 blockDimension,
                                                   unsigned sharedMemSize, cudaStream_t stream);

// cuda13-removed-api: the attributes that replace removed cudaDeviceProp
// fields (constants, since the enum above is not reopened), and the
// CUDA 13 4-component 64-bit vector types with their _16a/_32a successors.
constexpr cudaDeviceAttr cudaDevAttrGpuOverlap = (cudaDeviceAttr)15;
constexpr cudaDeviceAttr cudaDevAttrKernelExecTimeout = (cudaDeviceAttr)17;
constexpr cudaDeviceAttr cudaDevAttrComputeMode = (cudaDeviceAttr)20;
struct alignas(16) double4 { double x, y, z, w; };
struct alignas(16) double4_16a { double x, y, z, w; };
struct alignas(32) double4_32a { double x, y, z, w; };
struct alignas(16) long4 { long x, y, z, w; };
struct alignas(16) long4_16a { long x, y, z, w; };
struct alignas(32) long4_32a { long x, y, z, w; };
struct alignas(16) ulong4 { unsigned long x, y, z, w; };
struct alignas(16) ulong4_16a { unsigned long x, y, z, w; };
struct alignas(32) ulong4_32a { unsigned long x, y, z, w; };
struct alignas(16) longlong4 { long long x, y, z, w; };
struct alignas(16) longlong4_16a { long long x, y, z, w; };
struct alignas(32) longlong4_32a { long long x, y, z, w; };
struct alignas(16) ulonglong4 { unsigned long long x, y, z, w; };
struct alignas(16) ulonglong4_16a { unsigned long long x, y, z, w; };
struct alignas(32) ulonglong4_32a { unsigned long long x, y, z, w; };
