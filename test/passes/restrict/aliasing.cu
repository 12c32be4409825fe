// REQUIRES: cuda
// One buffer passed for a read pointer and a written one: __restrict__
// would be a false promise.
// RUN: not forge-port propose %s --kernel add --rules=restrict > %t.out 2> %t.err
// RUN: FileCheck %s --input-file=%t.err
// RUN: count 0 < %t.out

__global__ void add(const float *a, const float *b, float *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    c[i] = a[i] + b[i];
}

void twice(float *x, int n) {
  add<<<(n + 255) / 256, 256>>>(x, x + 0, x, n);
}
// CHECK: forge-port: note: restrict: not applicable: the launch at line [[@LINE-2]] passes 'x' for both 'a' and 'c', and one of them is written: the pointers alias
