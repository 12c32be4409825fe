__global__ void k(float *p) {
  p[0] = 1.0f;
  asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
  p[1] = 2.0f;
}
