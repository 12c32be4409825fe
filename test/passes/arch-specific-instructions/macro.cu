// An asm statement written in a macro is still reported, without a fix-it.
// RUN: not forge-port port --checks=arch-specific-instructions --to sm_80 --no-validate %s -o %t.cu -- %cuda_mock_flags 2>&1 | FileCheck %s --check-prefix=DIAG --implicit-check-not='{{warning|error}}:'
// RUN: FileCheck %s --check-prefix=FIX --match-full-lines --input-file=%t.cu
// RUN: %clang_cuda_mock -fsyntax-only %t.cu

#define CLUSTER_SYNC() asm volatile("barrier.cluster.arrive;\n\tbarrier.cluster.wait;\n" ::: "memory")

__global__ void k(unsigned *out) {
  CLUSTER_SYNC();
  // DIAG: [[@LINE-1]]:3: error: 'barrier.cluster' is not available on sm_80; thread-block clusters need sm_90 or later [arch-specific-instructions]
  // DIAG: :6:{{[0-9]+}}: note: expanded from macro 'CLUSTER_SYNC'
  // DIAG: [[@LINE-3]]:3: note: guard it with '#if __CUDA_ARCH__ >= 900' or compile for sm_90 or later
  // FIX: CLUSTER_SYNC();
  unsigned r;
  asm("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
  // DIAG: [[@LINE-1]]:3: error: '%cluster_ctarank' is not available on sm_80; thread-block clusters need sm_90 or later [arch-specific-instructions]
  // DIAG: [[@LINE-2]]:3: note: guard it with{{.*}}
  *out = r;
}

// Hopper-only asm in a macro gets no fix-it: the guard would have to go
// into the macro's definition, which other uses share.
#define WG_FENCE() asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory")
__device__ void fence() {
  WG_FENCE();
  // DIAG: [[@LINE-1]]:3: error: 'wgmma' is not available on sm_80;{{.*}}[arch-specific-instructions]
  // DIAG: :[[@LINE-4]]:{{[0-9]+}}: note: expanded from macro 'WG_FENCE'
  // DIAG: [[@LINE-3]]:3: note: guard it with '#if defined(__CUDA_ARCH_FEAT_SM90_ALL)' or compile for sm_90a
  // DIAG: [[@LINE-4]]:3: note: no fix-it: the statement is written in macro 'WG_FENCE'; guard the macro's definition or its uses by hand
  // FIX: WG_FENCE();
}

// DIAG: macro.cu: 3 error(s), 0 warning(s) for sm_80; 0 fixed
