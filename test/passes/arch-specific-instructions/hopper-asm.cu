// Unguarded wgmma and setmaxnreg: errors for plain sm_90 and sm_100, none for
// sm_90a, where both assemble.
// RUN: not forge-port port --checks=arch-specific-instructions --to sm_100 --no-validate %s -o %t.cu -- %cuda_mock_flags 2>&1 | FileCheck %s --check-prefix=SM100 --implicit-check-not='{{warning|error}}:'
// RUN: not forge-port port --checks=arch-specific-instructions --to sm_90 --no-validate %s -o %t.cu -- %cuda_mock_flags 2>&1 | FileCheck %s --check-prefix=SM90 --implicit-check-not='{{warning|error}}:'
// RUN: forge-port port --checks=arch-specific-instructions --to sm_90a --no-validate %s -o %t.cu -- %cuda_mock_flags 2>&1 | FileCheck %s --check-prefix=SM90A --implicit-check-not='{{warning|error}}:'
// RUN: FileCheck %s --check-prefix=FIX --match-full-lines --input-file=%t.cu
// RUN: %clang_cuda_mock -fsyntax-only %t.cu

// SM90A: hopper-asm.cu: 0 error(s), 0 warning(s) for sm_90a; 0 fixed

__device__ void fence() {
  asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
  // SM100: [[@LINE-1]]:3: error: 'wgmma' is not available on sm_100; it assembles only for sm_90a (sm_100a uses 'tcgen05') [arch-specific-instructions]
  // SM100: [[@LINE-2]]:3: note: guard it with '#if defined(__CUDA_ARCH_FEAT_SM90_ALL)' or compile for sm_90a
  // SM90: [[@LINE-3]]:3: error: 'wgmma' is not available on sm_90; it assembles only for sm_90a (sm_100a uses 'tcgen05') [arch-specific-instructions]
  // SM90: [[@LINE-4]]:3: note: guard it with '#if defined(__CUDA_ARCH_FEAT_SM90_ALL)' or compile for sm_90a
  // FIX: asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
}

__global__ void producer() {
  asm volatile("setmaxnreg.dec.sync.aligned.u32 40;\n");
  // SM100: [[@LINE-1]]:3: error: 'setmaxnreg' is not available on sm_100; it needs an arch- or family-specific target (sm_90a, sm_100a/f, sm_120a/f, ...), never plain sm_90 or sm_100 [arch-specific-instructions]
  // SM100: [[@LINE-2]]:3: note: guard it with '#if defined(__CUDA_ARCH_SPECIFIC__) || defined(__CUDA_ARCH_FAMILY_SPECIFIC__)' or compile for an 'a' or 'f' target
  // SM90: [[@LINE-3]]:3: error: 'setmaxnreg' is not available on sm_90;{{.*}}[arch-specific-instructions]
  // SM90: [[@LINE-4]]:3: note: guard it with{{.*}}
  fence();
}

// SM100: hopper-asm.cu: 2 error(s), 0 warning(s) for sm_100; 0 fixed
// SM90: hopper-asm.cu: 2 error(s), 0 warning(s) for sm_90; 0 fixed
