// Unguarded wgmma and setmaxnreg: errors for plain sm_90 and sm_100, none for
// sm_90a, where both assemble. The file has no portable path, so the fix
// guards each statement (adjacent ones together): wgmma traps on other
// targets, setmaxnreg is left out. The result compiles for sm_90a, sm_100
// and sm_100a (the original fails to assemble for sm_100).
// REQUIRES: cuda
// RUN: not forge-port port --checks=arch-specific-instructions --to sm_90 --no-validate %s 2>&1 | FileCheck %s --check-prefix=SM90 --implicit-check-not='{{warning|error}}:'
// RUN: forge-port port --checks=arch-specific-instructions --to sm_90a --no-validate %s -o %t.cu -- %cuda_mock_flags 2>&1 | FileCheck %s --check-prefix=SM90A --implicit-check-not='{{warning|error}}:'
// RUN: not forge-port port --checks=arch-specific-instructions --to sm_100 --no-validate %s -o %t.cu 2>&1 | FileCheck %s --check-prefix=SM100 --implicit-check-not='{{warning|error}}:'
// RUN: FileCheck %s --check-prefix=FIX --match-full-lines --strict-whitespace --input-file=%t.cu
// RUN: %nvcc -c -gencode arch=compute_90a,code=sm_90a -gencode arch=compute_100,code=sm_100 -gencode arch=compute_100a,code=sm_100a %t.cu -o %t.o

// SM90A: hopper-asm.cu: 0 error(s), 0 warning(s) for sm_90a; 0 fixed

__device__ void fence() {
  asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
  // SM100: [[@LINE-1]]:3: error: 'wgmma' is not available on sm_100; it assembles only for sm_90a (sm_100 has 'tcgen05' instead, which needs -arch=sm_100a or -arch=sm_100f) [arch-specific-instructions]
  // SM100: [[@LINE-2]]:3: note: guard it with '#if defined(__CUDA_ARCH_FEAT_SM90_ALL)' or compile for sm_90a
  // SM100: [[@LINE-3]]:3: warning: 'wgmma' guarded so that the file builds for sm_100, where it traps [arch-specific-instructions]
  // SM100: [[@LINE-4]]:3: note: fix-it: guarded with '#if defined(__CUDA_ARCH_FEAT_SM90_ALL)'; the file has no portable path here, so on sm_100 the '#else' traps instead of running 'wgmma': supply a fallback, or port it to 'tcgen05' for sm_100a
  // SM90: [[@LINE-5]]:3: error: 'wgmma' is not available on sm_90; it assembles only for sm_90a (sm_100a uses 'tcgen05') [arch-specific-instructions]
  // SM90: [[@LINE-6]]:3: note: guard it with '#if defined(__CUDA_ARCH_FEAT_SM90_ALL)' or compile for sm_90a
  // SM90: [[@LINE-7]]:3: warning: 'wgmma' guarded so that the file builds for sm_90, where it traps [arch-specific-instructions]
  // SM90: [[@LINE-8]]:3: note: fix-it: guarded with {{.*}} on sm_90 the '#else' traps {{.*}}
}
// FIX:__device__ void fence() {
// FIX-NEXT:#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
// FIX-NEXT:  asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
// FIX-NEXT:#else
// FIX-NEXT:  __trap(); // wgmma assembles only for sm_90a; on Blackwell (sm_100a) port it to tcgen05
// FIX-NEXT:#endif

// Adjacent statements that need the same guard share one.
__device__ void commitWait() {
  asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
  asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory"); // all of them
  // SM100: [[@LINE-2]]:3: error: 'wgmma' is not available on sm_100;{{.*}}
  // SM100: [[@LINE-3]]:3: note: guard it with{{.*}}
  // SM100: [[@LINE-4]]:3: warning: 'wgmma' guarded so that the file builds for sm_100, where it traps [arch-specific-instructions]
  // SM100: [[@LINE-5]]:3: note: fix-it: guarded with{{.*}}
  // SM100: [[@LINE-5]]:3: error: 'wgmma' is not available on sm_100;{{.*}}
  // SM100: [[@LINE-6]]:3: note: guard it with{{.*}}
  // SM100: [[@LINE-7]]:3: warning: 'wgmma' guarded so that the file builds for sm_100, where it traps [arch-specific-instructions]
  // SM100: [[@LINE-8]]:3: note: fix-it: guarded with{{.*}}
  // SM90-COUNT-6: hopper-asm.cu:{{[0-9]+}}:3: {{error|note}}: {{.*}}
}
// FIX:__device__ void commitWait() {
// FIX-NEXT:#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
// FIX-NEXT:  asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
// FIX-NEXT:  asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory"); // all of them
// FIX-NEXT:#else
// FIX-NEXT:  __trap(); // wgmma assembles only for sm_90a; on Blackwell (sm_100a) port it to tcgen05
// FIX-NEXT:#endif

// A statement that shares its line gets lines of its own.
__device__ inline void oneLine() { asm volatile("wgmma.fence.sync.aligned;\n"); }
// SM100: [[@LINE-1]]:36: error: 'wgmma' is not available on sm_100;{{.*}}
// SM100: [[@LINE-2]]:36: note: guard it with{{.*}}
// SM100: [[@LINE-3]]:36: warning: 'wgmma' guarded so that the file builds for sm_100, where it traps [arch-specific-instructions]
// SM100: [[@LINE-4]]:36: note: fix-it: guarded with{{.*}}
// SM90-COUNT-3: hopper-asm.cu:{{[0-9]+}}:36: {{error|note}}: {{.*}}
// FIX:__device__ inline void oneLine() {
// FIX-NEXT:#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
// FIX-NEXT:  asm volatile("wgmma.fence.sync.aligned;\n");
// FIX-NEXT:#else
// FIX-NEXT:  __trap(); // wgmma assembles only for sm_90a; on Blackwell (sm_100a) port it to tcgen05
// FIX-NEXT:#endif
// FIX-NEXT:}

__global__ void producer(float *out) {
  asm volatile("setmaxnreg.dec.sync.aligned.u32 40;\n");
  // SM100: [[@LINE-1]]:3: error: 'setmaxnreg' is not available on sm_100; it needs an arch- or family-specific target (sm_90a, sm_100a/f, sm_120a/f, ...), never plain sm_90 or sm_100 [arch-specific-instructions]
  // SM100: [[@LINE-2]]:3: note: guard it with '#if defined(__CUDA_ARCH_SPECIFIC__) || defined(__CUDA_ARCH_FAMILY_SPECIFIC__)' or compile for an 'a' or 'f' target
  // SM100: [[@LINE-3]]:3: note: fix-it: guarded with '#if defined(__CUDA_ARCH_SPECIFIC__) || defined(__CUDA_ARCH_FAMILY_SPECIFIC__)'; on sm_100 it is left out, which is correct: 'setmaxnreg' only redistributes registers among warps
  // SM90: [[@LINE-4]]:3: error: 'setmaxnreg' is not available on sm_90;{{.*}}[arch-specific-instructions]
  // SM90: [[@LINE-5]]:3: note: guard it with{{.*}}
  // SM90: [[@LINE-6]]:3: note: fix-it: guarded with{{.*}}
  fence();
  // The body of an if without braces: the guarded lines are still one statement.
  if (threadIdx.x == 0)
    asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
  // SM100: [[@LINE-1]]:5: error: 'wgmma' is not available on sm_100;{{.*}}
  // SM100: [[@LINE-2]]:5: note: guard it with{{.*}}
  // SM100: [[@LINE-3]]:5: warning: 'wgmma' guarded so that the file builds for sm_100, where it traps [arch-specific-instructions]
  // SM100: [[@LINE-4]]:5: note: fix-it: guarded with{{.*}}
  // SM90-COUNT-3: hopper-asm.cu:{{[0-9]+}}:5: {{error|note}}: {{.*}}
  commitWait();
  oneLine();
  out[threadIdx.x] = 1.0f;
}
// FIX:__global__ void producer(float *out) {
// FIX-NEXT:#if defined(__CUDA_ARCH_SPECIFIC__) || defined(__CUDA_ARCH_FAMILY_SPECIFIC__)
// FIX-NEXT:  asm volatile("setmaxnreg.dec.sync.aligned.u32 40;\n");
// FIX-NEXT:#endif
// FIX:  if (threadIdx.x == 0)
// FIX-NEXT:#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
// FIX-NEXT:    asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
// FIX-NEXT:#else
// FIX-NEXT:    __trap(); // wgmma assembles only for sm_90a; on Blackwell (sm_100a) port it to tcgen05
// FIX-NEXT:#endif

// SM100: hopper-asm.cu: 6 error(s), 5 warning(s) for sm_100; 6 fixed
// SM90: hopper-asm.cu: 6 error(s), 5 warning(s) for sm_90; 6 fixed
