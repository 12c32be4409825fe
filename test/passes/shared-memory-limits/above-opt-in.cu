// 300 KB is above what any block may have on sm_90, even after opting in.
// RUN: not forge-port port --checks=shared-memory-limits --to sm_90 --no-validate %s -o %t.cu -- %cuda_mock_flags \
// RUN:   2>&1 | FileCheck %s --implicit-check-not='{{warning|error}}:'

__global__ void stencil(float *out) {
  extern __shared__ float tile[];
  tile[threadIdx.x] = out[threadIdx.x];
}

void run(float *out) {
  cudaFuncSetAttribute(stencil, cudaFuncAttributeMaxDynamicSharedMemorySize, 300 * 1024);
  stencil<<<64, 256, 300 * 1024>>>(out);
  // CHECK: [[@LINE-1]]:3: error: launch of 'stencil' requests 307200 bytes of dynamic shared memory, which exceeds the 232448-byte maximum per block on sm_90; reduce the amount or split the work across more blocks [shared-memory-limits]
}
