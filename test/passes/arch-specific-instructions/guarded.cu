// wgmma guarded by the sm_90a feature macro: on sm_100 the asm is not
// compiled, so there is nothing to report.
// RUN: forge-port port --checks=arch-specific-instructions --to sm_100 --no-validate %s -o %t.cu -- %cuda_mock_flags 2>&1 | FileCheck %s --check-prefix=DIAG --implicit-check-not='{{warning|error}}:'
// RUN: FileCheck %s --check-prefix=FIX --match-full-lines --input-file=%t.cu
// RUN: %clang_cuda_mock -fsyntax-only %t.cu

// DIAG: guarded.cu: 0 error(s), 0 warning(s) for sm_100; 0 fixed

__device__ void fence() {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
  // FIX: asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
#endif
}

// Host code is not device code: its asm is not PTX.
void hostOnly() { asm volatile("nop"); }
