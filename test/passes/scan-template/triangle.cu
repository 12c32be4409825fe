// REQUIRES: cuda
// The naive O(n^2) prefix sum, each thread summing the input up to its own
// element (`for (j = 0; j <= i; ++j) s += in[j]; out[i] = s;`), is the
// model's per-thread prefix, a scan: the template replaces it. `j < i + 1`
// is inclusive too, `j < i` exclusive. What is not a prefix of one buffer
// keeps its loop.
// RUN: forge-port analyze %s --kernel tri_incl --block 256 | FileCheck %s --check-prefix=MODEL
// RUN: forge-port propose %s --kernel tri_incl --block 256 --rules=scan-template 2>&1 | FileCheck %s --check-prefix=INCL
// RUN: forge-port propose %s --kernel tri_plus_one --block 256 --rules=scan-template 2>&1 | FileCheck %s --check-prefix=PLUS
// RUN: forge-port propose %s --kernel tri_excl --block 256 --rules=scan-template 2>&1 | FileCheck %s --check-prefix=EXCL
// RUN: forge-port propose %s --kernel tri_incl --block 256 --rules=scan-template --apply -o %t.cu
// RUN: %nvcc -arch=sm_90 -c %t.cu -o %t.o
// RUN: not forge-port propose %s --kernel weighted --block 256 --rules=scan-template 2>&1 | FileCheck %s --check-prefix=NO
// RUN: not forge-port propose %s --kernel from_one --block 256 --rules=scan-template 2>&1 | FileCheck %s --check-prefix=NO
// RUN: not forge-port propose %s --kernel biased --block 256 --rules=scan-template 2>&1 | FileCheck %s --check-prefix=NO
// RUN: not forge-port propose %s --kernel in_place --block 256 --rules=scan-template 2>&1 | FileCheck %s --check-prefix=NO
// RUN: not forge-port propose %s --kernel other_row --block 256 --rules=scan-template 2>&1 | FileCheck %s --check-prefix=NO
// RUN: not forge-port propose %s --kernel window --block 256 --rules=scan-template 2>&1 | FileCheck %s --check-prefix=NO

__global__ void tri_incl(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float s = 0.0f;
    for (int j = 0; j <= i; ++j)
      s += in[j];
    out[i] = s;
  }
}
// MODEL: recognised:
// MODEL: per-thread inclusive prefix (+) of in into out: each thread sums in[0..i] for its own element i (O(n^2) work)
// INCL: # expert:scan-template: inclusive scan (+) of in into out as one pass with a decoupled look-back, 16 elements per thread
// INCL: # The kernel computes a prefix scan (per-thread inclusive prefix (+) of in into out

__global__ void tri_plus_one(const unsigned *keys, unsigned *sums, unsigned count) {
  unsigned t = threadIdx.x + blockIdx.x * blockDim.x;
  if (t >= count) return;
  unsigned acc = 0u;
  for (unsigned k = 0; k < t + 1; k++) acc += keys[k];
  sums[t] = acc;
}
// PLUS: # expert:scan-template: inclusive scan (+) of keys into sums

__global__ void tri_excl(const int *x, int *y, int len) {
  const int t = threadIdx.x + blockIdx.x * blockDim.x;
  if (t >= len) return;
  int acc = 0;
  for (int k = 0; k < t; k++) acc += x[k];
  y[t] = acc;
}
// EXCL: # expert:scan-template: exclusive scan (+) of x into y

// A weighted prefix: two buffers read in the loop.
__global__ void weighted(const float *in, const float *w, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float s = 0.0f;
    for (int j = 0; j <= i; ++j) s += in[j] * w[j];
    out[i] = s;
  }
}
// Skips the first element.
__global__ void from_one(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float s = 0.0f;
    for (int j = 1; j <= i; ++j) s += in[j];
    out[i] = s;
  }
}
// Starts from a bias, not 0.
__global__ void biased(const float *in, float *out, int n, float b) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float s = b;
    for (int j = 0; j <= i; ++j) s += in[j];
    out[i] = s;
  }
}
// In place: the threads race on the data they read.
__global__ void in_place(float *data, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float s = 0.0f;
    for (int j = 0; j <= i; ++j) s += data[j];
    data[i] = s;
  }
}
// The store is not at the element the bound names.
__global__ void other_row(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i + 1 < n) {
    float s = 0.0f;
    for (int j = 0; j <= i; ++j) s += in[j];
    out[i + 1] = s;
  }
}
// A sliding window, not a prefix.
__global__ void window(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float s = 0.0f;
    for (int j = 0; j <= i; ++j) s += in[j] - (j >= 8 ? in[j - 8] : 0.f);
    out[i] = s;
  }
}
// NO: scan-template: not applicable
