// REQUIRES: cuda
// The elementwise 8-per-thread loop written in other ways: a loop over the
// thread's own range `j = t * K .. t * K + K`; 64-bit bounds with
// `min(n, start + 8)`; an early return and an extra exit test in the loop
// header; a template chunk size; two inputs and a value held in a local.
// Each is remapped from the model, and each result compiles.
// RUN: forge-port propose %s --kernel c_range --block 256 --rules=coalesced-remap --apply -o %t.1.cu
// RUN: FileCheck %s --check-prefix=RANGE --match-full-lines --input-file=%t.1.cu
// RUN: %nvcc -arch=sm_90 -c %t.1.cu -o %t.1.o
// RUN: forge-port propose %s --kernel c_min --block 128 --rules=coalesced-remap --apply -o %t.2.cu
// RUN: FileCheck %s --check-prefix=MIN --match-full-lines --input-file=%t.2.cu
// RUN: %nvcc -arch=sm_90 -c %t.2.cu -o %t.2.o
// RUN: forge-port propose %s --kernel c_early --rules=coalesced-remap --apply -o %t.3.cu
// RUN: FileCheck %s --check-prefix=EARLY --match-full-lines --input-file=%t.3.cu
// RUN: %nvcc -arch=sm_90 -c %t.3.cu -o %t.3.o
// RUN: forge-port propose %s --kernel c_tmpl --block 256 --rules=coalesced-remap --apply -o %t.4.cu
// RUN: FileCheck %s --check-prefix=TMPL --match-full-lines --input-file=%t.4.cu
// RUN: %nvcc -arch=sm_90 -c %t.4.cu -o %t.4.o
// RUN: forge-port propose %s --kernel c_two --block 256 --rules=coalesced-remap --apply -o %t.5.cu
// RUN: FileCheck %s --check-prefix=TWO --match-full-lines --input-file=%t.5.cu
// RUN: %nvcc -arch=sm_90 -c %t.5.cu -o %t.5.o
// RUN: forge-port propose %s --kernel c_inplace --block 256 --rules=coalesced-remap --apply -o %t.6.cu
// RUN: FileCheck %s --check-prefix=INPLACE --match-full-lines --input-file=%t.6.cu
// RUN: %nvcc -arch=sm_90 -c %t.6.cu -o %t.6.o

#define K 8
__global__ void c_range(const float *x, float *y, int n) {
  int t = threadIdx.x + blockDim.x * blockIdx.x;
  for (int j = t * K; j < t * K + K; ++j)
    if (j < n) y[j] = 2.0f * x[j];
}
// The declaration of 't' only fed the old index: it goes.
// RANGE:      __global__ void c_range(const float *x, float *y, int n) {
// RANGE-NEXT:   // coalesced-remap: the block's 8 * blockDim.x elements, blockDim.x at a time:
// RANGE-NEXT:   // at step forge_k the warp takes 32 consecutive ones (thread t took t * 8 + k).
// RANGE-NEXT:   #pragma unroll
// RANGE-NEXT:   for (int forge_k = 0; forge_k < 8; ++forge_k) {
// RANGE-NEXT:     const long long forge_i =
// RANGE-NEXT:         8 * (long long)blockDim.x * blockIdx.x + (long long)forge_k * blockDim.x + threadIdx.x;
// RANGE-NEXT:     if (forge_i < n) y[forge_i] = 2.0f * x[forge_i];
// RANGE-NEXT:   }
// RANGE-NEXT: }

__global__ void c_min(const double *__restrict__ a, double *__restrict__ b, size_t n) {
  size_t tid = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  size_t start = tid * 8;
  size_t end = min(n, start + 8);
  for (size_t i = start; i < end; i++)
    b[i] = sqrt(a[i]) + 1.0;
}
// The loop's `min` limit becomes a per-element bound.
// MIN:      __global__ void c_min(const double *__restrict__ a, double *__restrict__ b, size_t n) {
// MIN-NEXT:   // coalesced-remap: the block's 8 * blockDim.x elements, blockDim.x at a time:
// MIN-NEXT:   // at step forge_k the warp takes 32 consecutive ones (thread t took t * 8 + k).
// MIN-NEXT:   #pragma unroll
// MIN-NEXT:   for (int forge_k = 0; forge_k < 8; ++forge_k) {
// MIN-NEXT:     const long long forge_i =
// MIN-NEXT:         8 * (long long)blockIdx.x * blockDim.x + (long long)forge_k * blockDim.x + threadIdx.x;
// MIN-NEXT:     if (forge_i >= n) continue;
// MIN-NEXT:     b[forge_i] = sqrt(a[forge_i]) + 1.0;
// MIN-NEXT:   }
// MIN-NEXT: }

__global__ void c_early(const int *in, int *out, int n) {
  int base = (blockIdx.x * blockDim.x + threadIdx.x) * 4;
  if (base >= n) return;
  #pragma unroll
  for (int k = 0; k < 4 && base + k < n; k++)
    out[base + k] = in[base + k] * 3;
}
// The early return is implied by the per-element bound and goes (another
// thread of the block may still have elements below n); the pragma stays.
// EARLY:      __global__ void c_early(const int *in, int *out, int n) {
// EARLY-NEXT:   // coalesced-remap: the block's 4 * blockDim.x elements, blockDim.x at a time:
// EARLY-NEXT:   // at step forge_k the warp takes 32 consecutive ones (thread t took t * 4 + k).
// EARLY-NEXT:   #pragma unroll
// EARLY-NEXT:   for (int forge_k = 0; forge_k < 4; ++forge_k) {
// EARLY-NEXT:     const long long forge_i =
// EARLY-NEXT:         4 * (long long)blockIdx.x * blockDim.x + (long long)forge_k * blockDim.x + threadIdx.x;
// EARLY-NEXT:     if (!(forge_i < n)) continue;
// EARLY-NEXT:     out[forge_i] = in[forge_i] * 3;
// EARLY-NEXT:   }
// EARLY-NEXT: }

template <int ITEMS>
__global__ void c_tmpl(const float *in, float *out, float s, int n) {
  const int gid = blockIdx.x * blockDim.x + threadIdx.x;
  for (int k = 0; k < ITEMS; ++k) {
    const int idx = gid * ITEMS + k;
    if (idx < n) out[idx] = in[idx] * s;
  }
}
template __global__ void c_tmpl<8>(const float *, float *, float, int);
template __global__ void c_tmpl<3>(const float *, float *, float, int);
// TMPL:      __global__ void c_tmpl(const float *in, float *out, float s, int n) {
// TMPL:        for (int forge_k = 0; forge_k < ITEMS; ++forge_k) {
// TMPL-NEXT:     const long long forge_i =
// TMPL-NEXT:         (long long)blockIdx.x * blockDim.x * ITEMS + (long long)forge_k * blockDim.x + threadIdx.x;
// TMPL-NEXT:     const int idx = forge_i;
// TMPL-NEXT:     if (idx < n) out[idx] = in[idx] * s;

__global__ void c_two(const float *a, const float *b, float *c, int n) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  for (int k = 0; k < 8; ++k) {
    int i = t * 8 + k;
    if (i < n) { float v = a[i] + b[i]; c[i] = v * v; }
  }
}
// TWO:      __global__ void c_two(const float *a, const float *b, float *c, int n) {
// TWO:          int i = forge_i;
// TWO-NEXT:     if (i < n) { float v = a[i] + b[i]; c[i] = v * v; }

// In place is fine: each iteration reads and writes only its own element.
__global__ void c_inplace(float *v, int n) {
  unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned base = t * 16;
  for (unsigned k = 0; k < 16; ++k)
    if (base + k < n) v[base + k] = v[base + k] * 0.5f;
}
// INPLACE:      __global__ void c_inplace(float *v, int n) {
// INPLACE:        for (int forge_k = 0; forge_k < 16; ++forge_k) {
// INPLACE-NEXT:     const long long forge_i =
// INPLACE-NEXT:         16 * (long long)blockIdx.x * blockDim.x + (long long)forge_k * blockDim.x + threadIdx.x;
// INPLACE-NEXT:     if (forge_i < n) v[forge_i] = v[forge_i] * 0.5f;
// INPLACE-NEXT:   }
