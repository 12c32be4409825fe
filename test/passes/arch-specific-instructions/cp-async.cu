// cp.async needs sm_80: an error for sm_75, nothing for sm_80.
// RUN: not forge-port port --checks=arch-specific-instructions --to sm_75 --no-validate %s -o %t.cu -- %cuda_mock_flags 2>&1 | FileCheck %s --check-prefix=SM75 --implicit-check-not='{{warning|error}}:'
// RUN: forge-port port --checks=arch-specific-instructions --to sm_80 --no-validate %s -o %t.cu -- %cuda_mock_flags 2>&1 | FileCheck %s --check-prefix=SM80 --implicit-check-not='{{warning|error}}:'
// RUN: FileCheck %s --check-prefix=FIX --match-full-lines --input-file=%t.cu
// RUN: %clang_cuda_mock -fsyntax-only %t.cu


__device__ void copy16(unsigned dst, const void *src) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" :: "r"(dst), "l"(src));
  // SM75: [[@LINE-1]]:3: error: 'cp.async' is not available on sm_75; it needs sm_80 or later [arch-specific-instructions]
  // SM75: [[@LINE-2]]:3: note: guard it with '#if __CUDA_ARCH__ >= 800' or compile for sm_80 or later
  asm volatile("cp.async.commit_group;\n" ::);
  // SM75: [[@LINE-1]]:3: error: 'cp.async' is not available on sm_75;{{.*}}[arch-specific-instructions]
  // SM75: [[@LINE-2]]:3: note: guard it with{{.*}}
  // FIX: asm volatile("cp.async.commit_group;\n" ::);
}

// SM75: cp-async.cu: 2 error(s), 0 warning(s) for sm_75; 0 fixed
// SM80: cp-async.cu: 0 error(s), 0 warning(s) for sm_80; 0 fixed
