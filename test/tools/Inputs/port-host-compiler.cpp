// A host unit as nvcc's host compiler sees it (port-host-compiler.cu): C++
// with __NVCC__ and the toolkit's headers, not CUDA. Host and device code
// shared through a header often branch on __CUDACC__; here the host branch
// is the one nvcc builds.
#ifdef __CUDACC__
#error "nvcc hands a .cpp to the host compiler: __CUDACC__ is not defined there"
#endif
#ifndef __NVCC__
#error "nvcc defines __NVCC__ for its host compiler"
#endif
#if !defined(__CUDACC_VER_MAJOR__) || __CUDACC_VER_MAJOR__ < 12
#error "nvcc defines __CUDACC_VER_MAJOR__ for its host compiler"
#endif
#include <cuda_runtime.h>

int sync_all() { return (int)cudaThreadSynchronize(); }
