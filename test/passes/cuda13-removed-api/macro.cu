// The input does not compile with CUDA 13. Each removed field is an error of
// the pass (with its fix or its reason); Clang's own "no member named" error
// for it is not printed besides (PARSE-NOT).
// RUN: not forge-port port --checks=cuda13-removed-api --to sm_90 --no-validate %s -o %t.cu -- %cuda_mock_flags > %t.log 2>&1
// RUN: FileCheck %s --check-prefix=DIAG --implicit-check-not='warning:' --input-file=%t.log
// RUN: FileCheck %s --check-prefix=PARSE --implicit-check-not='no member named' --input-file=%t.log
// RUN: FileCheck %s --check-prefix=FIX --match-full-lines --input-file=%t.cu

// Inside a macro the code is reported and never rewritten.

#define CLK(p) (p).clockRate
#define VEC double4

int clockKHz(int dev) {
  cudaDeviceProp prop;
  cudaGetDeviceProperties(&prop, dev);
  return CLK(prop);
  // DIAG: [[@LINE-1]]:10: error: 'cudaDeviceProp::clockRate' was removed{{.*}}[cuda13-removed-api]
  // PARSE-NOT: [[@LINE-2]]:10: error: no member named 'clockRate' in 'cudaDeviceProp'
  // DIAG: [[@LINE-3]]:10: note: not rewritten: the expression is written inside a macro
  // FIX: return CLK(prop);
}

__device__ double first(const VEC *v) { return v->x; }
// DIAG: [[@LINE-1]]:31: warning: 'double4' is deprecated{{.*}}[cuda13-removed-api]
// DIAG: [[@LINE-2]]:31: note: not rewritten: 'double4' and 'double4_16a' are distinct types, so every use in the file is renamed or none, and a use is written inside a macro
// FIX: __device__ double first(const VEC *v) { return v->x; }
