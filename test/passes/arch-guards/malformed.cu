// A condition the preprocessor itself rejects ('defined' with no name) is
// not evaluated: the comparison is flagged as its spelling alone has it, and
// the run goes on (Clang's error decides the exit status).
// RUN: not forge-port port --checks=arch-guards --to sm_90 --no-validate %s -- %cuda_mock_flags 2>&1 | FileCheck %s

__device__ float f(float v) {
#if __CUDA_ARCH__ == 800 || defined
// CHECK: [[@LINE-1]]:36: error: macro name missing
// CHECK: [[@LINE-2]]:5: warning: '__CUDA_ARCH__ == 800' excludes later targets such as sm_90; use '__CUDA_ARCH__ >= 800' [arch-guards]
// CHECK: [[@LINE-3]]:5: note: not rewritten: the condition combines several tests; rewrite it by hand
  return v * 2.0f;
#endif
  return v;
}
// CHECK: 1 error(s) (0 from the passes, 1 from Clang's parse), 1 warning(s) for sm_90
