// RUN: forge-port port --checks=arch-guards --to sm_90 --no-validate %s -o %t.cu -- %cuda_mock_flags 2>&1 | FileCheck %s --check-prefix=DIAG --implicit-check-not='{{warning|error}}:'
// RUN: FileCheck %s --check-prefix=FIX --match-full-lines --input-file=%t.cu
// RUN: %clang_cuda_mock -fsyntax-only %t.cu

#define IS_AMPERE (__CUDA_ARCH__ == 800)
// FIX: #define IS_AMPERE (__CUDA_ARCH__ == 800)

__device__ float scale(float v) {
#if IS_AMPERE
// DIAG: [[@LINE-1]]:5: warning: '__CUDA_ARCH__ == 800' excludes later targets such as sm_90; use '__CUDA_ARCH__ >= 800' [arch-guards]
// DIAG: macro.cu:5:9: note: not rewritten: the comparison is written in macro 'IS_AMPERE'; change it there
// FIX: #if IS_AMPERE
  return v * 2.0f;
#endif
  return v;
}

// 'defined' does not expand its operand.
#if defined(IS_AMPERE)
__device__ int ampereKnown() { return 1; }
#endif
