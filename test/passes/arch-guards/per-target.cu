// Each guard is evaluated for every plain target (sm_75 ... sm_121): only a
// comparison that makes later targets lose, for good, the path of the target
// before them is flagged.
// RUN: forge-port port --checks=arch-guards --to sm_100 --no-validate %s -o %t.cu -- %cuda_mock_flags 2>&1 | FileCheck %s --check-prefix=DIAG --implicit-check-not='{{warning|error}}:'
// RUN: FileCheck %s --check-prefix=FIX --match-full-lines --input-file=%t.cu
// RUN: %clang_cuda_mock -fsyntax-only %t.cu

// sm_86 and sm_89 are left out on purpose: sm_90 and later take the path
// again. Not flagged.
__device__ float ampere_or_hopper(float v) {
#if __CUDA_ARCH__ == 800 || __CUDA_ARCH__ >= 900
// FIX: #if __CUDA_ARCH__ == 800 || __CUDA_ARCH__ >= 900
  return v * 2.0f;
#else
  return v;
#endif
}

// An explicit upper bound takes the path away, not an '=='. Not flagged.
__device__ float ampere_only(float v) {
#if __CUDA_ARCH__ >= 800 && __CUDA_ARCH__ < 900 || __CUDA_ARCH__ == 750
  return v * 3.0f;
#else
  return v;
#endif
}

// Inside '#else' of '>= 900' only targets before sm_90 compile the inner
// chain, and none after sm_89 is among them. Not flagged.
__device__ float nested(float v) {
#if __CUDA_ARCH__ >= 900
  return v;
#else
#if __CUDA_ARCH__ == 890
  return v * 4.0f;
#else
  return v * 5.0f;
#endif
#endif
}

// Only the arch-specific target sm_90a defines the feature macro: no plain
// target takes this path, so none loses it. Not flagged.
__device__ float feature(float v) {
#if __CUDA_ARCH__ == 900 && defined(__CUDA_ARCH_FEAT_SM90_ALL)
  return v * 6.0f;
#endif
  return v;
}

// sm_100 loses the sm_90 path to an '#elif' that names it with '>='; the
// fix would move sm_100 and later out of that '#elif'.
__device__ int hopper_first(int v) {
#if __CUDA_ARCH__ == 900
// DIAG: [[@LINE-1]]:5: warning: '__CUDA_ARCH__ == 900' excludes later targets such as sm_100; use '__CUDA_ARCH__ >= 900' [arch-guards]
// FIX: #if __CUDA_ARCH__ == 900
  return v + 2;
#elif __CUDA_ARCH__ >= 800
// DIAG: [[@LINE-1]]:2: note: not rewritten: '__CUDA_ARCH__ >= 900' would take over this '#elif' for sm_100, sm_103, sm_110, sm_120, sm_121{{$}}
// DIAG: :[[@LINE-6]]:5: note: per target: sm_75 takes no branch; sm_80 to sm_89 take the '#elif' at line [[@LINE-2]]; sm_90 takes this '#if'; sm_100 to sm_121 take the '#elif' at line [[@LINE-2]]
  return v + 1;
#endif
  return v;
}

// A flag macro is read as the preprocessor reads it; the '==' still makes
// later targets lose the path.
#define USE_FAST_PATH 1
__device__ int flagged(int v) {
#if USE_FAST_PATH && __CUDA_ARCH__ == 860
// DIAG: [[@LINE-1]]:22: warning: '__CUDA_ARCH__ == 860' excludes later targets such as sm_100; use '__CUDA_ARCH__ >= 860' [arch-guards]
// DIAG: [[@LINE-2]]:22: note: not rewritten: the condition combines several tests; rewrite it by hand
// DIAG: [[@LINE-3]]:22: note: per target: sm_75 to sm_80 take no branch; sm_86 takes this '#if'; sm_87 to sm_121 take no branch
  return v * 7;
#endif
  return v;
}

// What the target alone does not decide (here __has_builtin) is not
// guessed: the comparison is flagged as before.
__device__ int unknown(int v) {
#if __has_builtin(__builtin_assume) && __CUDA_ARCH__ == 800
// DIAG: [[@LINE-1]]:40: warning: '__CUDA_ARCH__ == 800' excludes later targets such as sm_100; use '__CUDA_ARCH__ >= 800' [arch-guards]
// DIAG: [[@LINE-2]]:40: note: not rewritten: the condition combines several tests; rewrite it by hand
  return v * 8;
#endif
  return v;
}
