// Host code that includes the CUDA runtime: nvcc compiles it with the host
// compiler alone, the same for every arch (port-source-compile.cu).
#include <cuda_runtime.h>

int deviceCount() {
  int N = 0;
  cudaGetDeviceCount(&N);
  return N;
}
