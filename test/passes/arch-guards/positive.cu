// RUN: forge-port port --checks=arch-guards --to sm_90 --no-validate %s -o %t.cu -- %cuda_mock_flags 2>&1 | FileCheck %s --check-prefix=DIAG --implicit-check-not='{{warning|error}}:'
// RUN: FileCheck %s --check-prefix=FIX --match-full-lines --input-file=%t.cu
// RUN: %clang_cuda_mock -fsyntax-only %t.cu

__device__ float scale(float v) {
#if __CUDA_ARCH__ == 800
// DIAG: [[@LINE-1]]:5: warning: '__CUDA_ARCH__ == 800' excludes later targets such as sm_90; use '__CUDA_ARCH__ >= 800' [arch-guards]
// FIX: #if __CUDA_ARCH__ >= 800
  return v * 2.0f;
#else
  return v;
#endif
}

__device__ float bias(float v) {
#if defined(__CUDA_ARCH__) && (800 == __CUDA_ARCH__)
// DIAG: [[@LINE-1]]:32: warning: '800 == __CUDA_ARCH__' excludes later targets such as sm_90; use '800 <= __CUDA_ARCH__' [arch-guards]
// FIX: #if defined(__CUDA_ARCH__) && (800 <= __CUDA_ARCH__)
  return v + 1.0f;
#endif
  return v;
}

// Newest first: both branches widen without shadowing each other.
__device__ int path() {
#if __CUDA_ARCH__ == 900
// DIAG: [[@LINE-1]]:5: warning: '__CUDA_ARCH__ == 900' excludes later targets such as sm_100; use '__CUDA_ARCH__ >= 900' [arch-guards]
// FIX: #if __CUDA_ARCH__ >= 900
  return 2;
#elif __CUDA_ARCH__ == 800
// DIAG: [[@LINE-1]]:7: warning: '__CUDA_ARCH__ == 800' excludes later targets such as sm_90; use '__CUDA_ARCH__ >= 800' [arch-guards]
// FIX: #elif __CUDA_ARCH__ >= 800
  return 1;
#else
  return 0;
#endif
}
