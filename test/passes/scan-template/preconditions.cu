// REQUIRES: cuda
// Kernels the scan template must not replace, each with its reason; exit 1
// and nothing on stdout.
// RUN: not forge-port propose %s --kernel sum_only --rules=scan-template 2>&1 | FileCheck %s --check-prefix=SUM
// RUN: not forge-port propose %s --kernel scan_double --rules=scan-template 2>&1 | FileCheck %s --check-prefix=DOUBLE
// RUN: not forge-port propose %s --kernel scan_two_inputs --rules=scan-template 2>&1 | FileCheck %s --check-prefix=TWO
// RUN: not forge-port propose %s --kernel scan_counts --rules=scan-template 2>&1 | FileCheck %s --check-prefix=COUNTS
// RUN: not forge-port propose %s --kernel scan_tmpl --rules=scan-template 2>&1 | FileCheck %s --check-prefix=TMPL
// RUN: not forge-port propose %s --kernel scan_product --rules=scan-template 2>&1 | FileCheck %s --check-prefix=PRODUCT
// RUN: not forge-port propose %s --kernel chunk_scan --rules=scan-template 2>&1 | FileCheck %s --check-prefix=CHUNK
// RUN: not forge-port propose %s --kernel sum_only --rules=scan-template 2>/dev/null | count 0

// A reduction, not a scan: the running value is stored once, after the loop.
__global__ void sum_only(const float *x, float *out, int n) {
  float s = 0;
  for (int i = threadIdx.x; i < n; i += blockDim.x)
    s += x[i];
  out[threadIdx.x] = s;
}
// SUM: forge-port: note: scan-template: not applicable: no scan recognised

__global__ void scan_double(const double *x, double *y, int n) {
  double s = 0;
  for (int i = 0; i < n; ++i) {
    s += x[i];
    y[i] = s;
  }
}
// DOUBLE: not applicable: the elements are 'double': the scan template takes 4-byte arithmetic types

// The scan of a * b: two inputs of the element type.
__global__ void scan_two_inputs(const float *a, const float *b, float *y, int n) {
  float s = 0;
  for (int i = 0; i < n; ++i) {
    s += a[i] * b[i];
    y[i] = s;
  }
}
// TWO: not applicable: 2 pointer parameters of the element type are read; a scan reads one

// Two integer parameters, neither named by the store's guard.
__global__ void scan_counts(const int *x, int *y, int n, int stride) {
  int s = 0;
  for (int i = 0; i < n; i += stride) {
    s += x[i];
    y[i] = s;
  }
}
// COUNTS: not applicable: the element count is ambiguous: 2 integer parameters

template <typename T> __global__ void scan_tmpl(const T *x, T *y, int n) {
  T s = 0;
  for (int i = 0; i < n; ++i) {
    s += x[i];
    y[i] = s;
  }
}
template __global__ void scan_tmpl<float>(const float *, float *, int);
// TMPL: not applicable: the kernel is a template

// A running product is a scan too, but not one the template offers.
__global__ void scan_product(const float *x, float *y, int n) {
  float p = 1;
  for (int i = 0; i < n; ++i) {
    p *= x[i];
    y[i] = p;
  }
}
// PRODUCT: not applicable: the serial scan combines with 'mul'; the template takes +, max and min

// Each thread scans its own 8 elements: a segmented scan.
__global__ void chunk_scan(const float *in, float *out, int n) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  float run = 0.0f;
  for (int k = 0; k < 8; ++k) {
    int i = t * 8 + k;
    if (i < n) {
      run += in[i];
      out[i] = run;
    }
  }
}
// CHUNK: not applicable: the running value 'run' restarts in every thread (the store out[i] is strided, not one thread's walk over the array) and no block scan joins the threads' chunks
