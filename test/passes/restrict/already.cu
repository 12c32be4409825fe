// REQUIRES: cuda
// Nothing left to add; a pointer written through keeps its non-const pointee.
// RUN: not forge-port propose %s --kernel copy --rules=restrict 2>&1 | FileCheck %s
// RUN: not forge-port propose %s --kernel bump --rules=restrict 2>&1 | FileCheck %s

__global__ void copy(const float *__restrict__ in, float *__restrict__ out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = in[i];
}

__global__ void bump(int *__restrict__ counts) { counts[threadIdx.x] += 1; }

// CHECK: forge-port: note: restrict: not applicable: every pointer parameter already has __restrict__, and const where it is only read
