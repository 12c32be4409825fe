// REQUIRES: cuda
// Bounds from the index's type, a mask, min and a guard; one element per
// thread (the grid stays); an early return becomes a guard; other stores stay.
// RUN: forge-port propose %s --kernel per_thread --block 256 --rules=histogram-privatize --apply -o %t1.cu 2>&1 | FileCheck %s --check-prefix=PT
// RUN: FileCheck %s --check-prefix=PTFIX --input-file=%t1.cu
// RUN: %nvcc -arch=sm_90 -c %t1.cu -o %t1.o
// RUN: forge-port propose %s --kernel clamped --block 256 --rules=histogram-privatize 2>&1 | FileCheck %s --check-prefix=MIN
// RUN: forge-port propose %s --kernel clamped --block 256 --rules=histogram-privatize --apply -o %t2.cu
// RUN: FileCheck %s --check-prefix=MINFIX --input-file=%t2.cu
// RUN: %nvcc -arch=sm_90 -c %t2.cu -o %t2.o
// RUN: forge-port propose %s --kernel weighted --block 256 --rules=histogram-privatize 2>&1 | FileCheck %s --check-prefix=FLT
// RUN: forge-port propose %s --kernel weighted --block 256 --rules=histogram-privatize --apply -o %t3.cu
// RUN: %nvcc -arch=sm_90 -c %t3.cu -o %t3.o
// RUN: forge-port propose %s --kernel image --block 16,16 --rules=histogram-privatize --apply -o %t4.cu 2>&1 | FileCheck %s --check-prefix=IMG
// RUN: FileCheck %s --check-prefix=IMGFIX --input-file=%t4.cu
// RUN: %nvcc -arch=sm_90 -c %t4.cu -o %t4.o
// RUN: forge-port propose %s --kernel maxbin --block 256 --rules=histogram-privatize 2>&1 | FileCheck %s --check-prefix=MAX
// RUN: forge-port propose %s --kernel maxbin --block 256 --rules=histogram-privatize --apply -o %t5.cu
// RUN: FileCheck %s --check-prefix=MAXFIX --input-file=%t5.cu
// RUN: %nvcc -arch=sm_90 -c %t5.cu -o %t5.o

__global__ void per_thread(const unsigned char *data, int *hist, int *done, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicAdd(&hist[data[i]], 1);
  if (i == 0)
    done[0] = 1;
}
// PT: applied expert:histogram-privatize: 32 lane copies of the 256 bins per block, laid out [bin][copy] (lane l counts into copy l % 32) for atomicAdd(&hist[data[i]], ...)
// PTFIX: __shared__ int forge_hist[256][32];
// PTFIX: const int forge_w = forge_t % 32;
// PTFIX: atomicAdd(&forge_hist[data[i]][forge_w], 1);
// PTFIX: done[0] = 1;
// PTFIX: __syncthreads();
// PTFIX: atomicAdd(&hist[forge_j], forge_c);

__global__ void clamped(const unsigned *v, unsigned long long *h, int n) {
  int i = threadIdx.x + blockIdx.x * blockDim.x;
  if (i >= n) return;
  unsigned k = min(v[i], 63u);
  atomicAdd(h + k, 1ull);
}
// MIN: is in [0, 64) by 'min(v[i], 63u)'
// MINFIX: __shared__ unsigned long long forge_hist[64][32];
// MINFIX: if (!(i >= n)) {
// MINFIX: atomicAdd(&forge_hist[k][forge_w], 1ull);
// MINFIX-NEXT: }
// MINFIX-NEXT: __syncthreads();

__global__ void weighted(const int *key, const float *w, float *h, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicAdd(&h[key[i] & 127], w[i]);
}
// FLT: is in [0, 128) by '& 127'
// FLT: The floating-point additions are re-associated

__global__ void image(const unsigned char *img, unsigned *hist, int width, int height) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < width && y < height)
    atomicAdd(&hist[img[y * width + x]], 1u);
}
// IMG: applied expert:histogram-privatize: 32 lane copies of the 256 bins per block
// IMGFIX: const int forge_t = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
// IMGFIX: atomicAdd(&forge_hist[img[y * width + x]][forge_w], 1u);

__global__ void maxbin(const int *key, const int *val, int *m, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    int b = key[i];
    if (b >= 0 && b < 200)
      atomicMax(&m[b], val[i]);
  }
}
// MAX: is in [0, 200) by the guard 'b < 200'
// MAXFIX: (&forge_hist[0][0])[forge_j] = (int)(-2147483647 - 1);
// MAXFIX: atomicMax(&forge_hist[b][forge_w], val[i]);
// MAXFIX: forge_c = max(forge_c, forge_hist[forge_j][(forge_j + forge_r) % 32]);
// MAXFIX: if (forge_c != (int)(-2147483647 - 1))
// MAXFIX-NEXT: atomicMax(&m[forge_j], forge_c);
