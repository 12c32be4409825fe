// REQUIRES: cuda
// Pointers kept in a struct: the trace does not follow members, so the
// launch is not shown to pass distinct allocations (AllocationsTest has the
// other forms: pointer arrays, escaping addresses, reassignments).
// RUN: not forge-port propose %s --kernel k --rules=restrict 2>&1 | FileCheck %s

__global__ void k(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = in[i] * 2.0f;
}

struct Pair { float *in, *out; };

int main() {
  int n = 1000;
  Pair s;
  cudaMalloc(&s.in, n * 4);
  cudaMalloc(&s.out, n * 4);
  k<<<4, 256>>>(s.in, s.out, n);
  return 0;
}
// CHECK: forge-port: note: restrict: not applicable: the launch at line [[@LINE-3]] is not shown to pass distinct allocations for 'in' and 'out', and one of them is written: 's.in' is a member of a struct or class, whose value is not followed; pass --assume-no-alias to promise it
