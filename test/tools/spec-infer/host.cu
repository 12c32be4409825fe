// What the file's host code passes: the draft takes a size's value from a
// constant the launch passes, a buffer's count from its cudaMalloc where the
// kernel's accesses do not bound it, and a scalar's relation to the sizes
// from the launch's expression; a count that differs from the host's
// allocation gets a note.
// RUN: forge-port spec %s --kernel gather -- %cuda_mock_flags > %t.gather.json
// RUN: FileCheck %s --check-prefix=GATHER --input-file=%t.gather.json
// RUN: forge-port spec %s --kernel halves -- %cuda_mock_flags > %t.halves.json
// RUN: FileCheck %s --check-prefix=HALVES --input-file=%t.halves.json
// RUN: forge-port spec %s --kernel padded -- %cuda_mock_flags > %t.padded.json
// RUN: FileCheck %s --check-prefix=PADDED --input-file=%t.padded.json
#include <cuda_runtime.h>

__global__ void gather(float *out, const float *src, const int *idx, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = src[idx[i]];
}

// The second half of x gets the first half's values added.
__global__ void halves(float *x, int n, int half) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < half)
    x[i + half] += x[i];
}

__global__ void padded(const float *a, float *b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    b[i] = a[i] * 2.0f;
}

int main() {
  const int table = 1 << 16;
  int n = 1 << 20;
  float *d_out, *d_src, *d_x, *d_a, *d_b;
  int *d_idx;
  cudaMalloc(&d_out, n * sizeof(float));
  cudaMalloc((void **)&d_src, table * sizeof(float));
  cudaMalloc(&d_idx, sizeof(int) * n);
  gather<<<(n + 255) / 256, 256>>>(d_out, d_src, d_idx, n);

  size_t bytes = n * sizeof(float);
  cudaMalloc(&d_x, bytes);
  halves<<<(n / 2 + 127) / 128, 128>>>(d_x, n, n / 2);

  cudaMalloc(&d_a, (n + 32) * sizeof(float));
  cudaMalloc(&d_b, n * sizeof(float));
  padded<<<(n + 255) / 256, 256>>>(d_a, d_b, n);
  return 0;
}

// The indexed table's count is the host's constant; n is the value passed.
// GATHER:      "sizes": {
// GATHER-NEXT:   "n": 1048576
// GATHER:        "name": "src",
// GATHER:        "count": "65536",
// GATHER:        "name": "idx",
// GATHER-NEXT:   "dtype": "i32",
// GATHER-NEXT:   "count": "n",
// GATHER:      "notes": [
// GATHER:        "'src' has 65536 elements: the host allocates that many (the cudaMalloc at line 39, passed at line 41); the kernel's accesses do not bound it: 'src[idx[i]]' (line 17): 'idx[i]' is loaded from memory: data-dependent",
// GATHER:        "the sizes n = 1048576 are the values the launch at line 41 passes"

// The half is n / 2, as passed; x's count is bounded by the kernel.
// HALVES:      "sizes": {
// HALVES-NEXT:   "half": 524288
// HALVES:        "name": "x",
// HALVES:        "count": "2 * half",
// HALVES:        "name": "n",
// HALVES-NEXT:   "dtype": "i32",
// HALVES-NEXT:   "value": 1048576
// HALVES:        "name": "half",
// HALVES-NEXT:   "dtype": "i32",
// HALVES-NEXT:   "value": "half"
// HALVES:      "notes": [
// The host allocates n for x, which is 2 * half at the values passed: no
// note to check it.
// HALVES:        "'x' has 2 * half elements: the largest index + 1 of 'x[i + half]' (line 24)",
// HALVES:        "'n' is 1048576, the value the launch at line 45 passes",
// HALVES:        "the sizes half = 524288 are the values the launch at line 45 passes"

// The host allocates more than the kernel reads: the draft keeps the
// kernel's count and says so.
// PADDED:        "name": "a",
// PADDED:        "count": "n",
// PADDED:        "'a' has n elements: the largest index + 1 of 'a[i]' (line 30); the host allocates n + 32 (the cudaMalloc at line 47, passed at line 49): check which is meant",

// The same facts in the kernel model (`forge-port analyze`).
// RUN: forge-port analyze %s --kernel gather -- %cuda_mock_flags | FileCheck %s --check-prefix=MODEL
// RUN: forge-port analyze %s --kernel halves --format json -- %cuda_mock_flags | FileCheck %s --check-prefix=JSON
// MODEL:      launched from the host:
// MODEL-NEXT:   line 41 in main: out: n elements (the cudaMalloc at line 38); src: 65536 elements (the cudaMalloc at line 39); idx: n elements (the cudaMalloc at line 40); n = 1048576
// JSON: "host_launches": [
// JSON:   "line": 45,
// JSON:   "function": "main",
// JSON: "name": "x",
// JSON: "count": "n",
// JSON: "allocated_by": "the cudaMalloc at line 44"
// JSON: "name": "half",
// JSON: "text": "n / 2",
// JSON: "value": 524288,
// JSON: "relation": "n / 2"
