#include <cstdio>

__global__ void bad(float *p) {
  int y = 3;
  p[threadIdx.x] = x;
}
