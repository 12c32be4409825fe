// REQUIRES: cuda
// Two read-only pointers may point into one buffer: reads cannot conflict.
// The written pointer is traced, through run's caller, to its own
// allocation; x and x + n / 2 are one.
// RUN: forge-port propose %s --kernel mix --rules=restrict 2>&1 | FileCheck %s
// RUN: forge-port propose %s --kernel mix --rules=restrict --apply -o %t.cu 2>/dev/null
// RUN: %nvcc -arch=sm_90 -ptx %t.cu -o - | FileCheck %s --check-prefix=PTX

__global__ void mix(const float *a, const float *b, float *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    c[i] = a[i] * b[i];
}

static void run(const float *x, float *y, int n) {
  mix<<<(n + 255) / 256, 256>>>(x, x + n / 2, y, n / 2);
}

int main() {
  int n = 1000;
  float *x, *y;
  cudaMallocManaged(&x, n * sizeof(float));
  cudaMalloc((void **)&y, n / 2 * sizeof(float));
  run(x, y, n);
  return 0;
}
// CHECK: # expert:restrict: __restrict__ on a, b, c
// CHECK: The 1 launch(es) in this file pass distinct allocations for every pair of pointers one of which is written (traced to their allocations through the calls in this file).
// PTX: ld.global.nc.f32
