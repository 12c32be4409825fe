// Host code of a .cu calls <math.h>'s isfinite, isnan, ... unqualified:
// nvcc's headers bring in <math.h>, and so does the frontend's prelude. The
// file nvcc compiles is parsed with no error and the port exits 0.
// REQUIRES: cuda
// RUN: %nvcc -arch=sm_100 -c %s -o %t.o
// RUN: forge-port %s --to sm_100 > %t.log 2>&1
// RUN: FileCheck %s --input-file=%t.log --implicit-check-not='error:' --implicit-check-not='could not parse'

#include <cstdio>
#include <cuda_runtime.h>

__global__ void clampNonFinite(float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && !isfinite(x[i]))
    x[i] = 0.0f;
}

int countBad(const float *h, int n) {
  int bad = 0;
  for (int i = 0; i < n; i++)
    if (!isfinite(h[i]) || isnan(h[i]) || isinf(h[i]) || signbit(h[i]))
      bad++;
  return bad + (int)fabsf(h[0]) + (int)floor(sqrt(fabs((double)h[1])));
}

int main() {
  float h[2] = {1.0f, 4.0f};
  printf("%d\n", countBad(h, 2));
  return 0;
}

// CHECK: port-host-math.cu: 0 error(s), 0 warning(s) for sm_100; 0 fixed (use -o, -i or --diff to apply); nvcc compiles the file for sm_100
