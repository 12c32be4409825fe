// The reference's channel descriptor read to allocate the array it is bound
// to (SHOC's DeviceMemory and QTC): it becomes the descriptor texture<T>
// made, forgeChannelDesc<T>(), an lvalue so its address can be taken. The
// result builds with nvcc.
// REQUIRES: cuda
// RUN: forge-port port --checks=texture-references --to sm_90 --no-validate %s -o %t.cu 2>&1 | FileCheck %s
// RUN: FileCheck %s --check-prefix=FIX --input-file=%t.cu
// RUN: %nvcc -arch=sm_90 -c %t.cu -o %t.o
#include <cuda_runtime.h>

texture<float, 2, cudaReadModeElementType> image;

__global__ void sample(float *o, int w) {
  o[threadIdx.y * w + threadIdx.x] = tex2D(image, threadIdx.x + 0.5f, threadIdx.y + 0.5f);
}

void run(const float *h, float *o, int w, int hgt) {
  cudaArray *arr;
  cudaMallocArray(&arr, &image.channelDesc, w, hgt);
  // CHECK: [[@LINE-1]]:26: note: its channel descriptor read here: becomes the one texture<T> made, forgeChannelDesc<T>()
  // FIX: cudaMallocArray(&arr, &forgeChannelDesc<float>(), w, hgt);
  cudaMemcpy2DToArray(arr, 0, 0, h, w * sizeof(float), w * sizeof(float), hgt,
                      cudaMemcpyHostToDevice);
  image.filterMode = cudaFilterModePoint;
  cudaBindTextureToArray(image, arr);
  sample<<<1, dim3(16, 16)>>>(o, w);
  cudaUnbindTexture(image);
}
// CHECK: 1 error(s), 0 warning(s) for sm_90; 1 fixed
