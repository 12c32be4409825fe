// Hopper code with a portable path: the fix makes sm_100 take it instead of
// trapping. A later branch of the enclosing #if chain is selected by adding
// the feature macro to the branch's condition; the else of an enclosing
// 'if constexpr' by compiling the 'if constexpr' only under the feature macro.
// Where the chain has no later branch, the statement is guarded inside it.
// The result compiles for sm_90a, sm_100 and sm_100a.
// REQUIRES: cuda
// RUN: not forge-port port --checks=arch-specific-instructions --to sm_100 --no-validate %s -o %t.cu -- -DUSE_WGMMA 2>&1 | FileCheck %s --check-prefix=DIAG --implicit-check-not='{{warning|error}}:'
// RUN: FileCheck %s --check-prefix=FIX --match-full-lines --strict-whitespace --input-file=%t.cu
// RUN: %nvcc -DUSE_WGMMA -c -gencode arch=compute_90a,code=sm_90a -gencode arch=compute_100,code=sm_100 -gencode arch=compute_100a,code=sm_100a %t.cu -o %t.o

// An #if/#elif/#else chain: one condition edit covers every statement of the
// branch, with the strictest guard (wgmma's also covers setmaxnreg).
// DIAG: [[@LINE+9]]:3: error: 'wgmma' is not available on sm_100; it assembles only for sm_90a (sm_100 has 'tcgen05' instead, which needs -arch=sm_100a or -arch=sm_100f) [arch-specific-instructions]
// DIAG: [[@LINE+8]]:3: note: guard it with '#if defined(__CUDA_ARCH_FEAT_SM90_ALL)' or compile for sm_90a
// DIAG: [[@LINE+10]]:2: note: fix-it: 'defined(__CUDA_ARCH_FEAT_SM90_ALL)' is added to the condition, so sm_100 takes this branch (the file's portable path)
// DIAG: [[@LINE+7]]:3: error: 'setmaxnreg' is not available on sm_100;{{.*}}
// DIAG: [[@LINE+6]]:3: note: guard it with{{.*}}
// DIAG: [[@LINE+7]]:2: note: fix-it: 'defined(__CUDA_ARCH_FEAT_SM90_ALL)' is added to the condition{{.*}}
__device__ float mma(const float *a, const float *b) {
  float acc = 0.0f;
#if __CUDA_ARCH__ >= 900
  asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
  asm volatile("setmaxnreg.inc.sync.aligned.u32 232;\n");
  acc = a[0] * b[0];
#elif __CUDA_ARCH__ >= 800 // Ampere
  acc = a[1] * b[1];
#else
  acc = a[2] * b[2];
#endif
  return acc;
}
// FIX:#if __CUDA_ARCH__ >= 900 && defined(__CUDA_ARCH_FEAT_SM90_ALL)
// FIX-NEXT:  asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
// FIX:#elif __CUDA_ARCH__ >= 800 // Ampere

// #ifdef becomes #if defined(...) with the feature macro.
__device__ float byMacro(const float *a) {
#ifdef USE_WGMMA
  asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
  // DIAG: [[@LINE-1]]:3: error: 'wgmma' is not available on sm_100;{{.*}}
  // DIAG: [[@LINE-2]]:3: note: guard it with{{.*}}
  // DIAG: [[@LINE+2]]:2: note: fix-it: 'defined(__CUDA_ARCH_FEAT_SM90_ALL)' is added to the condition{{.*}}
  return a[0];
#else
  return a[1];
#endif
}
// FIX:#if defined(USE_WGMMA) && defined(__CUDA_ARCH_FEAT_SM90_ALL)

// A condition with '||' is parenthesised.
__device__ float orCond(const float *a) {
#if defined(USE_WGMMA) || __CUDA_ARCH__ >= 900 /* either */
  asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
  // DIAG: [[@LINE-1]]:3: error: 'wgmma' is not available on sm_100;{{.*}}
  // DIAG: [[@LINE-2]]:3: note: guard it with{{.*}}
  // DIAG: [[@LINE+2]]:2: note: fix-it: 'defined(__CUDA_ARCH_FEAT_SM90_ALL)' is added to the condition{{.*}}
  return a[0];
#else
  return a[1];
#endif
}
// FIX:#if (defined(USE_WGMMA) || __CUDA_ARCH__ >= 900) && defined(__CUDA_ARCH_FEAT_SM90_ALL) /* either */

// No other branch: the guard nests inside the existing one.
__device__ void noElse() {
#if __CUDA_ARCH__ >= 900
  asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
  // DIAG: [[@LINE-1]]:3: error: 'wgmma' is not available on sm_100;{{.*}}
  // DIAG: [[@LINE-2]]:3: note: guard it with{{.*}}
  // DIAG: [[@LINE-3]]:3: warning: 'wgmma' guarded so that the file builds for sm_100, where it traps [arch-specific-instructions]
  // DIAG: [[@LINE-4]]:3: note: fix-it: guarded with '#if defined(__CUDA_ARCH_FEAT_SM90_ALL)'; the file has no portable path here, so on sm_100 the '#else' traps{{.*}}
#endif
}
// FIX:__device__ void noElse() {
// FIX-NEXT:#if __CUDA_ARCH__ >= 900
// FIX-NEXT:#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
// FIX-NEXT:  asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
// FIX-NEXT:#else
// FIX-NEXT:  __trap(); // wgmma assembles only for sm_90a; on Blackwell (sm_100a) port it to tcgen05
// FIX-NEXT:#endif

// if constexpr with an else: sm_100 compiles only the else.
// DIAG: [[@LINE+7]]:5: error: 'wgmma' is not available on sm_100;{{.*}}
// DIAG: [[@LINE+6]]:5: note: guard it with{{.*}}
// DIAG: [[@LINE+7]]:5: note: fix-it: the 'if constexpr' is compiled only under 'defined(__CUDA_ARCH_FEAT_SM90_ALL)', so sm_100 compiles just this else branch (the file's portable path)
template <bool Wgmma>
__device__ float pick(const float *a) {
  float r;
  if constexpr (Wgmma) {
    asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
    r = a[0];
  } else {
    r = a[1];
  }
  return r;
}
// FIX:  float r;
// FIX-NEXT:#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
// FIX-NEXT:  if constexpr (Wgmma) {
// FIX:  } else
// FIX-NEXT:#endif
// FIX-NEXT:  {
// FIX-NEXT:    r = a[1];

__global__ void k(float *out, const float *a) {
  noElse();
  out[0] = mma(a, a) + byMacro(a) + orCond(a) + pick<true>(a) + pick<false>(a);
}

// DIAG: portable-path.cu: 6 error(s), 1 warning(s) for sm_100; 6 fixed
