// RUN: forge-port port --checks=arch-guards --to sm_90 --no-validate %s -o %t.cu -- %cuda_mock_flags 2>&1 | FileCheck %s --check-prefix=DIAG --implicit-check-not='{{warning|error}}:'
// RUN: FileCheck %s --check-prefix=FIX --match-full-lines --input-file=%t.cu
// RUN: %clang_cuda_mock -fsyntax-only %t.cu

__device__ float scale(float v) {
#if __CUDA_ARCH__ != 800
// DIAG: [[@LINE-1]]:5: warning: '__CUDA_ARCH__ != 800' treats later targets such as sm_90 differently from sm_80; use '__CUDA_ARCH__ < 800' if they share its code path [arch-guards]
// DIAG: [[@LINE-2]]:5: note: not rewritten: whether later targets belong in this branch depends on why the target is excluded
// FIX: #if __CUDA_ARCH__ != 800
  return v;
#else
  return v * 2.0f;
#endif
}

// An '==' next to a '!=' is not rewritten either.
__device__ float mix(float v) {
#if __CUDA_ARCH__ == 800 || __CUDA_ARCH__ != 700
// DIAG: [[@LINE-1]]:5: warning: '__CUDA_ARCH__ == 800' excludes later targets such as sm_90; use '__CUDA_ARCH__ >= 800' [arch-guards]
// DIAG: [[@LINE-2]]:5: note: not rewritten: the condition also tests '__CUDA_ARCH__' with '!='
// DIAG: [[@LINE-3]]:29: warning: '__CUDA_ARCH__ != 700' treats later targets such as sm_90 differently from sm_70; use '__CUDA_ARCH__ < 700' if they share its code path [arch-guards]
// DIAG: [[@LINE-4]]:29: note: not rewritten: whether later targets belong in this branch depends on why the target is excluded
// FIX: #if __CUDA_ARCH__ == 800 || __CUDA_ARCH__ != 700
  return v * 2.0f;
#endif
  return v;
}
