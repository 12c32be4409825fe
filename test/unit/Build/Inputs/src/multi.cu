#include "inc/hdr.cuh"
#warning this file is old

__global__ void k(float *p) {
  int unused = 0;
  p[0] = twice(p[1]);
  undefined_fn(p);
}
