// A row loop written as a while: the statement right before it starts the
// variable and the body's last statement steps it; both are split over the
// lanes. Declined, with the reason: a loop stepped in two places, a start
// that is not right before the loop, the variable used after it.
// RUN: forge-port propose %s --kernel rowsum_while --block 128 --rules=cooperative-row -o %t.cu -- %cuda_mock_flags 2>&1 | FileCheck %s --check-prefix=APPLIED
// RUN: FileCheck %s --check-prefix=SRC --input-file=%t.cu
// RUN: not forge-port propose %s --kernel with_continue --block 128 --rules=cooperative-row -- %cuda_mock_flags 2>&1 | FileCheck %s --check-prefix=CONT
// RUN: not forge-port propose %s --kernel start_apart --block 128 --rules=cooperative-row -- %cuda_mock_flags 2>&1 | FileCheck %s --check-prefix=APART
// RUN: not forge-port propose %s --kernel used_after --block 128 --rules=cooperative-row -- %cuda_mock_flags 2>&1 | FileCheck %s --check-prefix=AFTER

__global__ void rowsum_while(const double *a, double *s, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows)
    return;
  double t = 0;
  int c;
  c = 1;
  while (c <= cols - 1) {
    t += a[(size_t)r * cols + c];
    ++c;
  }
  s[r] = t;
}
// APPLIED: note: applied expert:cooperative-row
// SRC:      c = 1 + lane;
// SRC-NEXT: #pragma unroll 4
// SRC-NEXT: while (c <= cols - 1) {
// SRC-NEXT:   t += a[(size_t)r * cols + c];
// SRC-NEXT:   c += 32;

__global__ void with_continue(const float *a, float *s, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    float t = 0;
    int c = 0;
    while (c < cols) {
      if (a[r * cols + c] < 0) {
        ++c;
        continue;
      }
      t += a[r * cols + c];
      ++c;
    }
    s[r] = t;
  }
}
// Two steps of 'c': the model finds no counted row loop.
// CONT: cooperative-row: not applicable: no per-thread row loop

__global__ void start_apart(const float *a, float *s, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    int c = 0;
    float t = 0;
    while (c < cols) {
      t += a[r * cols + c];
      c++;
    }
    s[r] = t;
  }
}
// APART: cooperative-row: not applicable: the row loop over 'c' at line {{[0-9]+}} is a while loop, and the statement right before it does not start 'c'

__global__ void used_after(const float *a, float *s, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    float t = 0;
    int c = 0;
    while (c < cols) {
      t += a[r * cols + c];
      c++;
    }
    s[r] = t + c;
  }
}
// AFTER: cooperative-row: not applicable: the row loop over 'c' at line {{[0-9]+}}: 'c' is used outside the loop (line {{[0-9]+}})
