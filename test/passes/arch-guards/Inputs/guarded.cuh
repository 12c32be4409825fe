#pragma once
__device__ inline int pathId() {
#if __CUDA_ARCH__ == 800
  return 1;
#else
  return 0;
#endif
}
