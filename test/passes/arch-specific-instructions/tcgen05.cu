// tcgen05 is Blackwell's tensor-core MMA: sm_90a cannot assemble it, sm_100a can.
// RUN: not forge-port port --checks=arch-specific-instructions --to sm_90a --no-validate %s -o %t.cu -- %cuda_mock_flags 2>&1 | FileCheck %s --check-prefix=SM90A --implicit-check-not='{{warning|error}}:'
// RUN: forge-port port --checks=arch-specific-instructions --to sm_100a --no-validate %s -o %t.cu -- %cuda_mock_flags 2>&1 | FileCheck %s --check-prefix=SM100A --implicit-check-not='{{warning|error}}:'
// RUN: FileCheck %s --check-prefix=FIX --match-full-lines --input-file=%t.cu
// RUN: %clang_cuda_mock -fsyntax-only %t.cu

__device__ void commit(unsigned long long *bar) {
  asm volatile("tcgen05.commit.cta_group::1.mbarrier::arrive::one.b64 [%0];" :: "l"(bar));
  // SM90A: [[@LINE-1]]:3: error: 'tcgen05' is not available on sm_90a; it needs an arch- or family-specific target of family 10x (sm_100a/f, sm_103a/f, sm_110a/f) [arch-specific-instructions]
  // SM90A: [[@LINE-2]]:3: note: guard it with '#if defined(__CUDA_ARCH_FEAT_SM100_ALL)' (or the family macro) or compile for sm_100a or sm_100f
  // FIX: asm volatile("tcgen05.commit.cta_group::1.mbarrier::arrive::one.b64 [%0];" :: "l"(bar));
}

// SM90A: tcgen05.cu: 1 error(s), 0 warning(s) for sm_90a; 0 fixed
// SM100A: tcgen05.cu: 0 error(s), 0 warning(s) for sm_100a; 0 fixed
