// RUN: forge-port port --checks=cuda13-removed-api --to sm_90 --no-validate %s -o %t.cu -- %cuda_mock_flags 2>&1 | FileCheck %s --check-prefix=DIAG --implicit-check-not='{{warning|error}}:'
// RUN: FileCheck %s --check-prefix=FIX --match-full-lines --input-file=%t.cu
// RUN: %clang_cuda_mock -fsyntax-only %t.cu

// double4 and its kin are deprecated in CUDA 13; the _16a type keeps the
// size and alignment, so the rename is safe.

__global__ void scale(double4 *v, const long4 *w, double s) {
  // DIAG: [[@LINE-1]]:23: warning: 'double4' is deprecated in CUDA 13; use 'double4_16a' (16-byte aligned, same layout as before) or 'double4_32a' [cuda13-removed-api]
  // DIAG: [[@LINE-2]]:41: warning: 'long4' is deprecated in CUDA 13; use 'long4_16a' (16-byte aligned, same layout as before) or 'long4_32a' [cuda13-removed-api]
  // FIX: __global__ void scale(double4_16a *v, const long4_16a *w, double s) {
  double4 a = v[threadIdx.x];
  // DIAG: [[@LINE-1]]:3: warning: 'double4' is deprecated{{.*}}[cuda13-removed-api]
  // FIX: double4_16a a = v[threadIdx.x];
  a.x *= s * w[threadIdx.x].x;
  v[threadIdx.x] = a;
}

template <class T> __device__ T first(const T *p) { return p[0]; }

__device__ unsigned long long sum(const ulonglong4 *p) {
  // DIAG: [[@LINE-1]]:41: warning: 'ulonglong4' is deprecated{{.*}}[cuda13-removed-api]
  // FIX: __device__ unsigned long long sum(const ulonglong4_16a *p) {
  ulonglong4 q = first<ulonglong4>(p);
  // DIAG: [[@LINE-1]]:3: warning: 'ulonglong4' is deprecated{{.*}}[cuda13-removed-api]
  // DIAG: [[@LINE-2]]:24: warning: 'ulonglong4' is deprecated{{.*}}[cuda13-removed-api]
  // FIX: ulonglong4_16a q = first<ulonglong4_16a>(p);
  return q.x + q.w;
}
