// REQUIRES: cuda
// No launch in the file: the launch spec passes a buffer of its own for
// each pointer, separate allocations, so 'y' is not 'A' or 'x'. Without the
// spec (and without --assume-no-alias) the rule declines.
// RUN: forge-port propose %s --spec %S/Inputs/matvec.json --rules=accumulator-promotion 2>&1 | FileCheck %s --check-prefix=SPEC
// RUN: not forge-port propose %s --kernel matvec_spec --rules=accumulator-promotion 2>&1 | FileCheck %s --check-prefix=NOSPEC
// RUN: forge-port propose %s --spec %S/Inputs/matvec.json --rules=accumulator-promotion --apply -o %t.cu 2>/dev/null
// RUN: %nvcc -arch=sm_90 -c %t.cu -o /dev/null
__global__ void matvec_spec(const float *A, const float *x, float *y, int m, int n) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < m) {
    for (int k = 0; k < n; ++k)
      y[row] += A[(size_t)row * n + k] * x[k];
  }
}
// SPEC: # expert:accumulator-promotion: 'y[row]' kept in a register 'acc' across the loop over 'k' at line 12: loaded once before the loop, stored once after it
// SPEC: No launch is in this file; the launch spec passes its own buffer for 'y' and for 'A', 'x', each a separate allocation.
// NOSPEC: not applicable: no launch of 'matvec_spec' in this file shows that 'y' and 'A', 'x' point into distinct allocations
