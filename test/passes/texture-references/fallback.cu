// Where a kernel's parameters cannot carry the texture object (another file
// may launch the kernel, its address is taken, it has a default argument),
// the object goes into a __constant__ variable NAME_dev instead: the binds
// write it after creating the object, the fetches read it, and no
// signature changes.
// REQUIRES: cuda
// RUN: forge-port port --checks=texture-references --to sm_90 --no-validate %s -o %t.cu > %t.log 2>&1
// RUN: FileCheck %s --check-prefix=DIAG --input-file=%t.log
// RUN: FileCheck %s --check-prefix=FIX --match-full-lines --input-file=%t.cu
// RUN: %nvcc -arch=sm_90 -c %t.cu -o %t.o

// FIX: template <class Symbol>
// FIX: cudaTextureObject_t remote = 0; static __constant__ cudaTextureObject_t remote_dev;
texture<float, 1> remote;
// DIAG: [[@LINE-1]]:19: error: texture reference 'remote'
// DIAG: [[@LINE+2]]:17: note: kernel 'readRemote' reads 'remote' but is not launched in this file: another file may launch it, and its launches would need the texture object too: the object goes into __constant__ 'remote_dev' instead, written after each bind, and the kernels read it there
// DIAG: [[@LINE+1]]:61: note: read here: becomes tex1Dfetch<float>(remote_dev, ...)
__global__ void readRemote(float *out) { out[threadIdx.x] = tex1Dfetch(remote, threadIdx.x); }
// FIX: __global__ void readRemote(float *out) { out[threadIdx.x] = tex1Dfetch<float>(remote_dev, threadIdx.x); }
cudaError_t bindRemote(float *p, size_t n) {
  remote.filterMode = cudaFilterModeLinear;
  return cudaBindTexture(0, remote, p, n * sizeof(float));
  // FIX: return forgeUpload(remote_dev, &remote, forgeBindTexture(&remote, p, cudaCreateChannelDesc<float>(), n * sizeof(float), forgeTextureDesc(cudaReadModeElementType, cudaFilterModeLinear)));
}
void unbindRemote() { cudaUnbindTexture(remote); }
// FIX: void unbindRemote() { forgeUnbindTexture(&remote); }

// A kernel whose address is taken, read through a helper: neither changes.
texture<int, 1> pointed;
// FIX: cudaTextureObject_t pointed = 0; static __constant__ cudaTextureObject_t pointed_dev;
// DIAG: [[@LINE-2]]:17: error: texture reference 'pointed'
__device__ int loadPointed(int i) { return tex1Dfetch(pointed, i); }
// FIX: __device__ int loadPointed(int i) { return tex1Dfetch<int>(pointed_dev, i); }
__global__ void readPointed(int *out) { out[threadIdx.x] = loadPointed(threadIdx.x); }
// FIX: __global__ void readPointed(int *out) { out[threadIdx.x] = loadPointed(threadIdx.x); }
void launchPointed(int *p) {
  cudaFuncSetAttribute(readPointed, cudaFuncAttributeMaxDynamicSharedMemorySize, 0);
  // DIAG: [[@LINE-1]]:24: note: the address of 'readPointed' is taken here; a call through it cannot pass the texture object: the object goes into __constant__ 'pointed_dev' instead
  cudaBindTexture(NULL, pointed, p, 64 * sizeof(int));
  readPointed<<<1, 32>>>(p);
  // FIX: readPointed<<<1, 32>>>(p);
}

// A default argument: the object could not follow it.
texture<int, 1> defaulted;
// FIX: cudaTextureObject_t defaulted = 0; static __constant__ cudaTextureObject_t defaulted_dev;
__global__ void readDefaulted(int *out, int k = 1) { out[0] = tex1Dfetch(defaulted, k); }
// FIX: __global__ void readDefaulted(int *out, int k = 1) { out[0] = tex1Dfetch<int>(defaulted_dev, k); }
void launchDefaulted(int *p) {
  cudaBindTexture(0, defaulted, p, 4);
  readDefaulted<<<1, 1>>>(p);
}
