// A launch already preceded by cudaFuncSetAttribute for the same kernel is
// left alone, whichever way the kernel is spelled.
// RUN: forge-port port --checks=shared-memory-limits --to sm_90 --no-validate %s -o %t.cu -- %cuda_mock_flags \
// RUN:   2>&1 | FileCheck %s --allow-empty --implicit-check-not='{{warning|error}}:'
// RUN: diff %s %t.cu

__global__ void stencil(float *out) {
  extern __shared__ float tile[];
  tile[threadIdx.x] = out[threadIdx.x];
}

void run(float *out) {
  const int Bytes = 100 * 1024;
  cudaFuncSetAttribute(stencil, cudaFuncAttributeMaxDynamicSharedMemorySize, Bytes);
  stencil<<<64, 256, Bytes>>>(out);
}

void runCast(float *out) {
  cudaFuncSetAttribute((const void *)&stencil, cudaFuncAttributeMaxDynamicSharedMemorySize,
                       200 * 1024);
  cudaLaunchKernel(stencil, dim3(8), dim3(128), nullptr, 200 * 1024, 0);
}
