// RUN: forge-port port --checks=arch-guards --to sm_90 --no-validate %s -o %t.cu -- %cuda_mock_flags 2>&1 | FileCheck %s --check-prefix=DIAG --implicit-check-not='{{warning|error}}:'
// RUN: FileCheck %s --check-prefix=FIX --match-full-lines --input-file=%t.cu
// RUN: %clang_cuda_mock -fsyntax-only %t.cu

__device__ float scale(float v) {
#if __CUDA_ARCH__ != 800
// DIAG: [[@LINE-1]]:5: warning: '__CUDA_ARCH__ != 800' treats later targets such as sm_90 differently from sm_80; use '__CUDA_ARCH__ < 800' if they share its code path [arch-guards]
// DIAG: [[@LINE-2]]:5: note: not rewritten: whether later targets belong in this branch depends on why the target is excluded
// DIAG: [[@LINE-3]]:5: note: per target: sm_75 takes this '#if'; sm_80 takes the '#else' at line [[@LINE+3]]; sm_86 to sm_121 take this '#if'
// FIX: #if __CUDA_ARCH__ != 800
  return v;
#else
  return v * 2.0f;
#endif
}

// Every target after sm_86 takes this branch, so the '== 900' loses
// nothing (no warning); the '!= 860' does: sm_86's path is gone after it.
// (A value older than the port's source, sm_80 here, is not flagged when
// the source and the target take the same branch: source-arch.cu.)
__device__ float mix(float v) {
#if __CUDA_ARCH__ == 900 || __CUDA_ARCH__ != 860
// DIAG: [[@LINE-1]]:29: warning: '__CUDA_ARCH__ != 860' treats later targets such as sm_90 differently from sm_86; use '__CUDA_ARCH__ < 860' if they share its code path [arch-guards]
// DIAG: [[@LINE-2]]:29: note: not rewritten: whether later targets belong in this branch depends on why the target is excluded
// DIAG: [[@LINE-3]]:29: note: per target: sm_75 to sm_80 take this '#if'; sm_86 takes no branch; sm_87 to sm_121 take this '#if'
// FIX: #if __CUDA_ARCH__ == 900 || __CUDA_ARCH__ != 860
  return v * 2.0f;
#endif
  return v;
}
