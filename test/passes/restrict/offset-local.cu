// REQUIRES: cuda
// A local that offsets another pointer points into the same allocation:
// the launch passes one buffer for a read pointer and a written one.
// RUN: not forge-port propose %s --kernel shift --rules=restrict 2>&1 | FileCheck %s
// RUN: not forge-port propose %s --kernel shift --rules=restrict --assume-no-alias 2>&1 | FileCheck %s

__global__ void shift(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = in[i];
}

int main() {
  int n = 1000;
  float *p;
  cudaMalloc(&p, (n + 1) * sizeof(float));
  float *q = p + 1;
  shift<<<(n + 255) / 256, 256>>>(p, q, n);
  return 0;
}
// CHECK: forge-port: note: restrict: not applicable: the launch at line [[@LINE-3]] passes pointers into the cudaMalloc at line [[@LINE-5]] for both 'in' and 'out', and one of them is written: the pointers alias
