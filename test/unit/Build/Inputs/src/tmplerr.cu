#include "inc/hdr.cuh"

__global__ void k(float *p) {
  p[0] = twice(p[1]);
}
