// 40 KB of dynamic shared memory and a run-time amount need nothing.
// RUN: forge-port port --checks=shared-memory-limits --to sm_90 --no-validate %s -o %t.cu -- %cuda_mock_flags \
// RUN:   2>&1 | FileCheck %s --allow-empty --implicit-check-not='{{warning|error}}:'
// RUN: diff %s %t.cu

__global__ void stencil(float *out) {
  extern __shared__ float tile[];
  __shared__ float partial[1024];
  tile[threadIdx.x] = out[threadIdx.x];
  partial[threadIdx.x] = tile[threadIdx.x];
}

void run(float *out, size_t n) {
  stencil<<<64, 256, 40 * 1024>>>(out);
  stencil<<<64, 256, n * sizeof(float)>>>(out);
  stencil<<<64, 256>>>(out);
}
