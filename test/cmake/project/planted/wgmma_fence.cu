// Hopper-only inline PTX (sm_90a) in a library built for sm_80, sm_90 and
// sm_100: forge-port reports it as an error, and the build stops there.
__global__ void fenced(float *out) {
  asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
  out[threadIdx.x] = 1.0f;
}
