// RUN: forge-port port --checks=arch-guards --to sm_90 --no-validate %s -o %t.cu -- %cuda_mock_flags 2>&1 | FileCheck %s --check-prefix=DIAG --implicit-check-not='{{warning|error}}:'
// RUN: FileCheck %s --check-prefix=FIX --match-full-lines --input-file=%t.cu
// RUN: %clang_cuda_mock -fsyntax-only %t.cu

// Oldest first: '>= 800' would take over the sm_90 branch, so only the last
// one is rewritten.
__device__ int path() {
#if __CUDA_ARCH__ == 800
// DIAG: [[@LINE-1]]:5: warning: '__CUDA_ARCH__ == 800' excludes later targets such as sm_90; use '__CUDA_ARCH__ >= 800' [arch-guards]
// FIX: #if __CUDA_ARCH__ == 800
  return 1;
#elif __CUDA_ARCH__ == 900
// DIAG: [[@LINE-1]]:2: note: not rewritten: '__CUDA_ARCH__ >= 800' would take over this '#elif' for sm_90; order the branches from the newest target down
// DIAG: [[@LINE-2]]:7: warning: '__CUDA_ARCH__ == 900' excludes later targets such as sm_100; use '__CUDA_ARCH__ >= 900' [arch-guards]
// FIX: #elif __CUDA_ARCH__ >= 900
  return 2;
#endif
  return 0;
}
