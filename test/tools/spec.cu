// `forge-port spec` drafts a valid launch spec: buffers with roles from
// constness and writes, scalars, template arguments from the launch, and
// the block size of the launch as the default of a BLOCK tunable.
// RUN: forge-port spec %s --kernel axpy --size 4096 -- %cuda_mock_flags | FileCheck %s
// RUN: not forge-port spec %s --kernel nope -- %cuda_mock_flags 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: forge-port spec %s --kernel axpy -- %cuda_mock_flags > %t.json
// RUN: FileCheck %s --check-prefix=ROUNDTRIP --input-file=%t.json

template <typename T, int ITEMS>
__global__ void axpy(int n, T a, const T *__restrict__ x, T *y, T *out) {
  int i = (blockIdx.x * blockDim.x + threadIdx.x) * ITEMS;
  for (int k = 0; k < ITEMS && i + k < n; ++k) {
    y[i + k] += a * x[i + k];
    out[i + k] = y[i + k];
  }
}

void run(int n, double *x, double *y, double *o) {
  axpy<double, 2><<<(n + 255) / 256, 128>>>(n, 2.0, x, y, o);
}

// CHECK:      "kernel": "axpy",
// CHECK-NEXT: "template_args": [
// CHECK-NEXT:   "double",
// CHECK-NEXT:   "ITEMS"
// The size is the kernel's own n, bound by the loop's 'i + k < n'.
// CHECK:      "n": 4096
// CHECK:        "name": "x",
// CHECK-NEXT:   "dtype": "f64",
// CHECK-NEXT:   "count": "n",
// CHECK-NEXT:   "role": "in",
// CHECK:        "name": "y",
// CHECK-NEXT:   "dtype": "f64",
// CHECK-NEXT:   "count": "n",
// CHECK-NEXT:   "role": "inout",
// CHECK:        "name": "out",
// CHECK-NEXT:   "dtype": "f64",
// CHECK-NEXT:   "count": "n",
// CHECK-NEXT:   "role": "out"
// CHECK-NEXT: }
// CHECK:      "scalars": [
// CHECK-NEXT:   {
// CHECK-NEXT:     "name": "n",
// CHECK-NEXT:     "dtype": "i32",
// CHECK-NEXT:     "value": "n"
// CHECK:          "name": "a",
// CHECK-NEXT:     "dtype": "f64",
// CHECK-NEXT:     "value": 1.5
// CHECK:      "args": [
// CHECK-NEXT:   "n",
// CHECK-NEXT:   "a",
// CHECK-NEXT:   "x",
// CHECK-NEXT:   "y",
// CHECK-NEXT:   "out"
// The items per thread divide the grid (the tunable's name stands for it).
// CHECK:      "grid": "ceil_div(n, ITEMS * BLOCK)",
// CHECK-NEXT: "block": "BLOCK",
// CHECK:        "name": "BLOCK",
// CHECK:        "default": 128
// The integer template parameter is a tunable too, with the launch's value
// as its default.
// CHECK:        "name": "ITEMS",
// CHECK-NEXT:   "values": [
// CHECK-NEXT:     1,
// CHECK-NEXT:     2,
// CHECK-NEXT:     4,
// CHECK-NEXT:     8
// CHECK-NEXT:   ],
// CHECK-NEXT:   "default": 2
// CHECK:      "bytes": "n * 8 + 2 * n * 8 + n * 8"
// CHECK:      "notes": [
// CHECK:        "grid.x covers ceil_div(n, ITEMS) threads, from {{.*}}k < n' (line 12)",

// MISSING: forge-port: error: no kernel named 'nope' in {{.*}}spec.cu; kernels: axpy

// ROUNDTRIP: "kernel": "axpy"
