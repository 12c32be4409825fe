// RUN: forge-port port --checks=arch-guards --to sm_100 --no-validate %s -o %t.cu -- %cuda_mock_flags 2>&1 | FileCheck %s --check-prefix=DIAG --implicit-check-not='{{warning|error}}:'
// RUN: FileCheck %s --check-prefix=FIX --match-full-lines --input-file=%t.cu
// RUN: %clang_cuda_mock -fsyntax-only %t.cu

// Widening would make sm_100 assemble wgmma: warn, propose the feature macro.
__device__ void fence() {
#if __CUDA_ARCH__ == 900
// DIAG: [[@LINE-1]]:5: warning: '__CUDA_ARCH__ == 900' excludes later targets such as sm_100; use '__CUDA_ARCH__ >= 900' [arch-guards]
// FIX: #if __CUDA_ARCH__ == 900
  asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
// DIAG: [[@LINE-1]]:17: note: not rewritten: the guarded code uses 'wgmma', which assembles only for sm_90a; guard it with '__CUDA_ARCH_FEAT_SM90_ALL' instead
#endif
}

__device__ void regs() {
#if __CUDA_ARCH__ == 900
// DIAG: [[@LINE-1]]:5: warning: '__CUDA_ARCH__ == 900' excludes later targets such as sm_100; use '__CUDA_ARCH__ >= 900' [arch-guards]
// FIX: #if __CUDA_ARCH__ == 900
  asm volatile("setmaxnreg.inc.sync.aligned.u32 240;\n");
// DIAG: [[@LINE-1]]:17: note: not rewritten: the guarded code uses 'setmaxnreg', which assembles only for arch- or family-specific targets (sm_90a, sm_100a, sm_100f, ...); guard it with '__CUDA_ARCH_SPECIFIC__' or '__CUDA_ARCH_FAMILY_SPECIFIC__' instead
#endif
}
