// An '=='/'!=' on a target older than the port's source is not flagged when
// the source and the target take the same branch: the exclusion is already
// in effect in the code being ported (the source is itself one of the later
// targets), so the port changes nothing there. A comparison on the source
// itself, or on a later target, is flagged as before.
// RUN: forge-port port --checks=arch-guards --to sm_100 --from sm_80 --no-validate %s -- %cuda_mock_flags 2>&1 | FileCheck %s --check-prefix=DIAG --implicit-check-not='{{warning|error}}:'
// The source from the compile flags (as -p's database gives it): sm_75.
// RUN: forge-port port --checks=arch-guards --to sm_100 --no-validate %s -- %cuda_mock_flags --cuda-gpu-arch=sm_75 2>&1 | FileCheck %s --check-prefixes=DIAG,FROM75 --implicit-check-not='{{warning|error}}:'

#define ARCH_PASCAL_GP104 610
#define ARCH_VOLTA 700
#define ARCH_TURING 750
#define ARCH_AMPERE 800

#if __CUDA_ARCH__ >= 600
#define HAS_HALF
#endif

// sm_61 runs half precision slowly: it alone is left out. sm_75, sm_80 and
// sm_100 all take the '#if'. Not flagged.
#if defined(HAS_HALF) && __CUDA_ARCH__ != ARCH_PASCAL_GP104
#define FAST_HALF
#endif

// A path for Volta alone, on purpose; neither the source nor sm_100 takes
// it. Not flagged.
#if __CUDA_ARCH__ == ARCH_VOLTA
#define VOLTA_ONLY_MMA
#endif

// A path for Turing alone: from sm_80 neither side takes it (not flagged);
// from sm_75 the source takes it and sm_100 loses it.
__device__ int turing(int v) {
#if __CUDA_ARCH__ == ARCH_TURING
// FROM75: [[@LINE-1]]:5: warning: '__CUDA_ARCH__ == 750' excludes later targets such as sm_100; use '__CUDA_ARCH__ >= 750' [arch-guards]
// FROM75: source-arch.cu:12:9: note: not rewritten: the comparison is written in macro 'ARCH_TURING'; change it there
  return v + 3;
#else
  return v;
#endif
}

// The source's own path, lost on sm_100: flagged from either source.
__device__ int ampere(int v) {
#if __CUDA_ARCH__ == 800
// DIAG: [[@LINE-1]]:5: warning: '__CUDA_ARCH__ == 800' excludes later targets such as sm_100; use '__CUDA_ARCH__ >= 800' [arch-guards]
  return v + 2;
#else
  return v;
#endif
}

__device__ float scale(float v) {
#ifdef FAST_HALF
  v *= 2.0f;
#endif
#ifdef VOLTA_ONLY_MMA
  v *= 3.0f;
#endif
  return v;
}
