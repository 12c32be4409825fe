// REQUIRES: cuda
// The launch is in a host function whose callers are not in this file:
// its two pointers may be one buffer. --assume-no-alias makes it the
// user's promise, and the rationale says so.
// RUN: not forge-port propose %s --kernel add --rules=restrict 2>&1 | FileCheck %s --check-prefix=NO
// RUN: forge-port propose %s --kernel add --rules=restrict --assume-no-alias 2>&1 | FileCheck %s --check-prefix=YES
// RUN: forge-port propose %s --kernel add --rules=restrict --assume-no-alias --apply -o %t.cu 2>/dev/null
// RUN: %nvcc -arch=sm_90 -c %t.cu -o %t.o

__global__ void add(const float *a, float *b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    b[i] += a[i];
}

void launch_add(const float *a, float *b, int n) {
  add<<<(n + 255) / 256, 256>>>(a, b, n);
}
// NO: forge-port: note: restrict: not applicable: the launch at line [[@LINE-2]] is not shown to pass distinct allocations for 'a' and 'b', and one of them is written: 'a' is a parameter of 'launch_add', whose callers are not in this file; pass --assume-no-alias to promise it

// YES: # expert:restrict: __restrict__ on a, b
// YES: Of the 1 launch(es) in this file, not all are shown to pass distinct allocations (the launch at line 17 is not shown to pass distinct allocations for 'a' and 'b', and one of them is written: 'a' is a parameter of 'launch_add', whose callers are not in this file): that they do is the user's promise (--assume-no-alias).
