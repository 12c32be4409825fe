// A 100 KB dynamic-shared launch gets cudaFuncSetAttribute inserted before
// its statement, with the kernel and the amount as written.
// RUN: forge-port port --checks=shared-memory-limits --to sm_90 --no-validate %s -o %t.cu -- %cuda_mock_flags \
// RUN:   2>&1 | FileCheck %s --check-prefix=DIAG --implicit-check-not='{{warning|error}}:'
// RUN: FileCheck %s --check-prefix=FIX --match-full-lines --input-file=%t.cu
// RUN: %clang_cuda_mock -fsyntax-only %t.cu

__global__ void stencil(float *out) {
  extern __shared__ float tile[];
  tile[threadIdx.x] = out[threadIdx.x];
  __syncthreads();
  out[threadIdx.x] = tile[(threadIdx.x + 1) % blockDim.x];
}

void run(float *out) {
  stencil<<<64, 256, 100 * 1024>>>(out);
  // DIAG: [[@LINE-1]]:3: warning: launch of 'stencil' requests 102400 bytes of dynamic shared memory, above the 49152-byte default; call cudaFuncSetAttribute(stencil, cudaFuncAttributeMaxDynamicSharedMemorySize, 102400) first [shared-memory-limits]
  // FIX:      cudaFuncSetAttribute(stencil, cudaFuncAttributeMaxDynamicSharedMemorySize, 100 * 1024);
  // FIX-NEXT:   stencil<<<64, 256, 100 * 1024>>>(out);
}

void runConst(float *out, cudaStream_t s) {
  constexpr size_t Bytes = 96 * 1024;
  if (cudaLaunchKernel(stencil, dim3(8), dim3(128), nullptr, Bytes, s) != cudaSuccess)
    return;
  // DIAG: [[@LINE-2]]:7: warning: launch of 'stencil' requests 98304 bytes of dynamic shared memory, above the 49152-byte default; call cudaFuncSetAttribute(stencil, cudaFuncAttributeMaxDynamicSharedMemorySize, 98304) first [shared-memory-limits]
  // FIX:      cudaFuncSetAttribute(stencil, cudaFuncAttributeMaxDynamicSharedMemorySize, Bytes);
  // FIX-NEXT:   if (cudaLaunchKernel(stencil, dim3(8), dim3(128), nullptr, Bytes, s) != cudaSuccess)
}

void runEx(float *out) {
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = dim3(4);
  cfg.blockDim = dim3(128);
  cfg.dynamicSmemBytes = 64 * 1024;
  cudaLaunchKernelEx(&cfg, stencil, out);
  // DIAG: [[@LINE-1]]:3: warning: launch of 'stencil' requests 65536 bytes of dynamic shared memory, above the 49152-byte default; call cudaFuncSetAttribute(stencil, cudaFuncAttributeMaxDynamicSharedMemorySize, 65536) first [shared-memory-limits]
  // FIX:      cudaFuncSetAttribute(stencil, cudaFuncAttributeMaxDynamicSharedMemorySize, 64 * 1024);
  // FIX-NEXT:   cudaLaunchKernelEx(&cfg, stencil, out);
}
