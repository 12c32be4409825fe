// RUN: forge-port port --checks=arch-guards --to sm_90 --no-validate %s -o %t.cu -- %cuda_mock_flags 2>&1 | FileCheck %s --check-prefix=DIAG --allow-empty --implicit-check-not='{{warning|error}}:'
// RUN: FileCheck %s --check-prefix=FIX --match-full-lines --input-file=%t.cu
// RUN: %clang_cuda_mock -fsyntax-only %t.cu

// DIAG-NOT: [arch-guards]
__device__ float scale(float v) {
#if __CUDA_ARCH__ >= 800
// FIX: #if __CUDA_ARCH__ >= 800
  return v * 2.0f;
#elif defined(__CUDA_ARCH_FEAT_SM90_ALL) || __CUDA_ARCH__ < 700
  return v * 3.0f;
#else
  return v;
#endif
}
