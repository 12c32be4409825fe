// A grid sized from a literal SM count is right on one GPU only.
// RUN: forge-port port --checks=hardware-constants --to sm_100 --no-validate %s -- %cuda_mock_flags \
// RUN:   2>&1 | FileCheck %s --check-prefix=DIAG --implicit-check-not='{{warning|error}}:'

#define NUM_SMS 132

__global__ void persistent(float *x, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    x[i] *= 2.0f;
}

void run(float *x, int n) {
  persistent<<<108 * 4, 256>>>(x, n);
  // DIAG: [[@LINE-1]]:16: warning: grid size built from the literal 108, the SM count of an A100; query cudaDevAttrMultiProcessorCount instead [hardware-constants]
  // DIAG: [[@LINE-2]]:16: note: int sms = 0; cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device); then size the grid from 'sms'
  int blocks = NUM_SMS * 2;
  persistent<<<blocks, 256>>>(x, n);
  // DIAG: [[@LINE-2]]:16: warning: grid size built from the literal 132, the SM count of an H100/H200; query cudaDevAttrMultiProcessorCount instead [hardware-constants]
  // DIAG: note: int sms
  persistent<<<132, 128>>>(x, n); // the block size is not a grid: only the grid counts
  // DIAG: [[@LINE-1]]:16: warning: grid size built from the literal 132
  // DIAG: note: int sms
  persistent<<<n / 256, 132>>>(x, n);
}
