// RUN: forge-port port --checks=cuda13-removed-api --to sm_90 --no-validate %s -o %t.cu 2>&1 | FileCheck %s --check-prefix=DIAG --implicit-check-not='{{warning|error}}:'
// RUN: FileCheck %s --check-prefix=FIX --match-full-lines --input-file=%t.cu
// RUN: %nvcc -arch=sm_90 -c %t.cu -o %t.o
// REQUIRES: cuda

// double4 and double4_16a are distinct types: a value that make_double4
// returns does not convert to double4_16a, so renaming the return type
// alone breaks the build (SHOC's MD reads positions this way). Every use of
// double4 in the file is left as it is (the type is only deprecated);
// long4, which nothing outside the file makes, is renamed.

__device__ double4 load(const double2 *p) {
  // DIAG: [[@LINE-1]]:12: warning: 'double4' is deprecated in CUDA 13{{.*}}
  // DIAG: [[@LINE-2]]:12: note: not rewritten: 'double4' and 'double4_16a' are distinct types, so every use in the file is renamed or none, and 'make_double4' returns the old type (line [[@LINE+3]])
  // FIX: __device__ double4 load(const double2 *p) {
  double2 a = p[0], b = p[1];
  return make_double4(a.x, a.y, b.x, b.y);
}

__global__ void k(double4 *out, long4 *w, const double2 *p) {
  // DIAG: [[@LINE-1]]:19: warning: 'double4' is deprecated in CUDA 13{{.*}}
  // DIAG: [[@LINE-2]]:19: note: not rewritten{{.*}}
  // DIAG: [[@LINE-3]]:33: warning: 'long4' is deprecated in CUDA 13{{.*}}
  // FIX: __global__ void k(double4 *out, long4_16a *w, const double2 *p) {
  out[threadIdx.x] = load(p + 2 * threadIdx.x);
  w[threadIdx.x].x += 1;
}
