// A grid sized from the queried SM count, and an ordinary 128: nothing.
// RUN: forge-port port --checks=hardware-constants --to sm_90 --no-validate %s -- %cuda_mock_flags \
// RUN:   2>&1 | FileCheck %s --implicit-check-not='{{warning|error}}:'
// CHECK: 0 error(s), 0 warning(s) for sm_90

__global__ void persistent(float *x) { x[threadIdx.x] = 0; }

void run(float *x, int dev) {
  int sms = 0;
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
  persistent<<<sms * 4, 128>>>(x);
}
