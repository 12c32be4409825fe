// A launch written inside a macro is reported but not fixed; an amount
// spelled with an object-like macro is fixed with the macro's name.
// RUN: forge-port port --checks=shared-memory-limits --to sm_90 --no-validate %s -o %t.cu -- %cuda_mock_flags \
// RUN:   2>&1 | FileCheck %s --check-prefix=DIAG --implicit-check-not='{{warning|error}}:'
// RUN: FileCheck %s --check-prefix=FIX --match-full-lines --input-file=%t.cu
// RUN: %clang_cuda_mock -fsyntax-only %t.cu

#define SMEM_BYTES (80 * 1024)
#define LAUNCH(k, out) k<<<64, 256, SMEM_BYTES>>>(out)

__global__ void stencil(float *out) {
  extern __shared__ float tile[];
  tile[threadIdx.x] = out[threadIdx.x];
}

void run(float *out) {
  LAUNCH(stencil, out);
  // DIAG: [[@LINE-1]]:10: warning: launch of 'stencil' requests 81920 bytes of dynamic shared memory, above the 49152-byte default; call cudaFuncSetAttribute(stencil, cudaFuncAttributeMaxDynamicSharedMemorySize, 81920) first [shared-memory-limits]
  // DIAG: note: not fixed: the launch is written inside a macro
  // FIX:      LAUNCH(stencil, out);
}

void runPlain(float *out) {
  stencil<<<64, 256, SMEM_BYTES>>>(out);
  // DIAG: [[@LINE-1]]:3: warning: launch of 'stencil' requests 81920 bytes{{.*}}[shared-memory-limits]
  // FIX:      cudaFuncSetAttribute(stencil, cudaFuncAttributeMaxDynamicSharedMemorySize, SMEM_BYTES);
  // FIX-NEXT:   stencil<<<64, 256, SMEM_BYTES>>>(out);
}
