// REQUIRES: cuda
// const on the pointers only read, __restrict__ on all; the read-only loads
// then go through the non-coherent path. The launch's pointers are traced
// through run's one caller to three cudaMallocs.
// RUN: forge-port propose %s --kernel scale --rules=restrict --apply -o %t.cu 2>&1 \
// RUN:   | FileCheck %s --check-prefix=NOTE
// RUN: FileCheck %s --check-prefix=FIX --match-full-lines --input-file=%t.cu
// RUN: %nvcc -arch=sm_90 -ptx %t.cu -o - | FileCheck %s --check-prefix=PTX

__global__ void scale(float *x, float* w, float *y, float a, int n);
// FIX: __global__ void scale(const float *__restrict__ x, const float* __restrict__ w, float *__restrict__ y, float a, int n);

__global__ void scale(float *x, float* w, float *y, float a, int n) {
// FIX: __global__ void scale(const float *__restrict__ x, const float* __restrict__ w, float *__restrict__ y, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = a * x[i] * w[i];
}

void run(float *x, float *w, float *y, int n) {
  scale<<<(n + 255) / 256, 256>>>(x, w, y, 2.0f, n);
}

int main() {
  int n = 1000;
  float *x, *w, *y;
  cudaMalloc(&x, n * sizeof(float));
  cudaMalloc(&w, n * sizeof(float));
  cudaMalloc(&y, n * sizeof(float));
  run(x, w, y, n);
  return 0;
}

// NOTE: forge-port: note: applied expert:restrict: const __restrict__ on the read-only pointers x, w; __restrict__ on y
// PTX: ld.global.nc.f32
