// REQUIRES: cuda
// No launch of the kernel in the file: nothing shows that out does not
// overlap in. Declined by default; applied on the user's promise.
// RUN: not forge-port propose %s --kernel copy --rules=restrict 2>&1 | FileCheck %s --check-prefix=NO
// RUN: forge-port propose %s --kernel copy --rules=restrict --assume-no-alias 2>&1 | FileCheck %s --check-prefix=YES
// A kernel with one pointer cannot alias itself: no promise is needed.
// RUN: forge-port propose %s --kernel bump --rules=restrict 2>&1 | FileCheck %s --check-prefix=ONE

__global__ void copy(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = in[i];
}

__global__ void bump(int *counts) { counts[threadIdx.x] += 1; }

// NO: forge-port: note: restrict: not applicable: no launch of 'copy' in this file shows that its pointers point into distinct allocations; pass --assume-no-alias to promise it for every caller
// YES: # expert:restrict: __restrict__ on in, out
// YES: No launch of the kernel is in this file: that no two of its pointers point into one allocation is the user's promise (--assume-no-alias), not checked here.
// ONE: # expert:restrict: __restrict__ on counts
// ONE: No pointer the kernel writes could alias another one: no launch needs to be checked.
