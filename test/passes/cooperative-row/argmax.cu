// REQUIRES: cuda
// A row argmax / argmin: the lanes keep (value, position) pairs and combine
// them by value, then by the earlier position; what the rule declines.
// RUN: forge-port propose %s --kernel argmax_rows --block 256 --rules=cooperative-row 2>&1 | FileCheck %s --check-prefix=WARP
// RUN: forge-port propose %s --kernel argmax_rows --block 256 --rules=cooperative-row --format=json > %t.json
// RUN: %python %S/../../Inputs/apply_proposal.py %t.json 1 %s > %t.block.cu
// RUN: FileCheck %s --check-prefix=BLOCK < %t.block.cu
// RUN: %nvcc -arch=sm_90 -c %t.block.cu -o %t.o
// RUN: forge-port propose %s --kernel argmin_down --block 128 --rules=cooperative-row 2>&1 | FileCheck %s --check-prefix=DOWN
// RUN: forge-port propose %s --kernel argmax_offset --block 128 --rules=cooperative-row 2>&1 | FileCheck %s --check-prefix=OFFSET
// RUN: not forge-port propose %s --kernel argmax_reversed --block 256 --rules=cooperative-row 2>&1 | FileCheck %s --check-prefix=REVERSED
// RUN: not forge-port propose %s --kernel argmax_read --block 256 --rules=cooperative-row 2>&1 | FileCheck %s --check-prefix=READ
// RUN: not forge-port propose %s --kernel argmax_two --block 256 --rules=cooperative-row 2>&1 | FileCheck %s --check-prefix=TWO
// RUN: not forge-port propose %s --kernel argmax_narrow --block 256 --rules=cooperative-row 2>&1 | FileCheck %s --check-prefix=NARROW
// RUN: not forge-port propose %s --kernel argmax_2d --block 256 --rules=cooperative-row 2>&1 | FileCheck %s --check-prefix=OUTER
// RUN: not forge-port propose %s --kernel targmax --block 256 --rules=cooperative-row 2>&1 | FileCheck %s --check-prefix=TEMPLATE

__global__ void argmax_rows(const float *x, int *out, int rows, int n) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= rows)
    return;
  float best = -INFINITY;
  int at = -1;
  for (int k = 0; k < n; ++k) {
    float v = x[(size_t)row * n + k];
    if (v > best) {
      best = v;
      at = k;
    }
  }
  out[row] = at;
}
// WARP: # expert:cooperative-row: one warp per row for the row reduction (argmax) into 'best'
// WARP: 'best' (argmax, position 'at', the earlier one among equal values)
// WARP: const float best_other = __shfl_xor_sync(0xffffffff, best, offset);
// WARP-NEXT: const int at_other = __shfl_xor_sync(0xffffffff, at, offset);
// WARP-NEXT: if (best_other > best || (best_other == best && at_other < at)) {
// WARP-NEXT:   best = best_other;
// WARP-NEXT:   at = at_other;
// BLOCK: __shared__ float best_part[32];
// BLOCK: __shared__ int at_part[32];
// BLOCK: best_part[lane / 32] = best;
// BLOCK-NEXT: at_part[lane / 32] = at;
// BLOCK: best = best_part[0];
// BLOCK-NEXT: at = at_part[0];
// BLOCK-NEXT: for (int w = 1; w < lanes / 32; ++w) {
// BLOCK-NEXT:   if (best_part[w] > best || (best_part[w] == best && at_part[w] < at)) {
// BLOCK-NEXT:     best = best_part[w];
// BLOCK-NEXT:     at = at_part[w];

// A loop that counts down: the first of equal values is the highest position.
__global__ void argmin_down(const double *x, long *out, int rows, int n) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < rows) {
    const double *p = x + (long)row * n;
    double lo = p[n - 1];
    long where = n - 1;
    for (int k = n - 2; k >= 0; --k)
      if (p[k] < lo) {
        lo = p[k];
        where = k;
      }
    out[row] = where;
  }
}
// DOWN: # expert:cooperative-row: one warp per row
// DOWN: if (lo_other < lo || (lo_other == lo && where_other > where)) {

// The position kept is the loop variable plus a row offset.
__global__ void argmax_offset(const int *x, long long *out, int rows, int n) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= rows)
    return;
  long long base = (long long)row * n;
  int best = x[base];
  long long at = base;
  for (int k = 1; k < n; ++k)
    if (x[base + k] > best) {
      best = x[base + k];
      at = base + k;
    }
  out[row] = at;
}
// OFFSET: # expert:cooperative-row: one warp per row
// OFFSET: if (best_other > best || (best_other == best && at_other < at)) {

// The position runs against the loop: its order is not the lanes'.
__global__ void argmax_reversed(const float *x, int *out, int rows, int n) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= rows)
    return;
  float best = -INFINITY;
  int at = 0;
  for (int k = 0; k < n; ++k)
    if (x[row * n + k] > best) {
      best = x[row * n + k];
      at = n - 1 - k;
    }
  out[row] = at;
}
// REVERSED: not applicable: the argmax of 'best' at line {{[0-9]+}} keeps 'n - 1 - k' as its position; the lanes' candidates are ordered by it only when it is the loop variable 'k'

// The position is read inside the loop.
__global__ void argmax_read(const float *x, int *out, int rows, int n) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= rows)
    return;
  float best = -INFINITY;
  int at = 0;
  for (int k = 0; k < n; ++k) {
    if (x[row * n + k] > best) {
      best = x[row * n + k];
      at = k;
    }
    out[row * n + k] = at;
  }
}
// READ: not applicable: the argmax of 'best' at line {{[0-9]+}}: 'at' is read in the loop, where each lane would see its own

// Two positions.
__global__ void argmax_two(const float *x, int *out, int *out2, int rows, int n) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= rows)
    return;
  float best = -INFINITY;
  int at = 0, at2 = 0;
  for (int k = 0; k < n; ++k)
    if (x[row * n + k] > best) {
      best = x[row * n + k];
      at = k;
      at2 = 2 * k;
    }
  out[row] = at;
  out2[row] = at2;
}
// TWO: not applicable: the argmax of 'best' at line {{[0-9]+}} keeps more than one position ('at', 'at2')

// A position narrower than the loop variable could wrap.
__global__ void argmax_narrow(const float *x, short *out, int rows, long n) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= rows)
    return;
  float best = -INFINITY;
  short at = 0;
  for (long k = 0; k < n; ++k)
    if (x[row * n + k] > best) {
      best = x[row * n + k];
      at = k;
    }
  out[row] = at;
}
// NARROW: not applicable: the argmax of 'best' at line {{[0-9]+}} keeps its position in 'at' of type 'short', narrower than the loop variable or not an integer

// An argmax over a 2D block of rows: the column position alone does not
// order the candidates of different rows.
__global__ void argmax_2d(const float *x, int *out, int rows, int n) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= rows)
    return;
  float best = -INFINITY;
  int at = 0;
  for (int r = 0; r < 4; ++r)
    for (int k = 0; k < n; ++k)
      if (x[(t * 4 + r) * n + k] > best) {
        best = x[(t * 4 + r) * n + k];
        at = k;
      }
  out[t] = at;
}
// OUTER: not applicable: the argmax of 'best' also runs over an outer loop, where its position 'at' no longer orders the candidates

// A template: the position's width is not known on the pattern.
template <typename T, typename I>
__global__ void targmax(const T *x, I *out, int rows, I n) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= rows)
    return;
  T best = x[(size_t)row * n];
  I at = 0;
  for (I k = 1; k < n; ++k)
    if (x[(size_t)row * n + k] > best) {
      best = x[(size_t)row * n + k];
      at = k;
    }
  out[row] = at;
}
template __global__ void targmax<float, int>(const float *, int *, int, int);
// TEMPLATE: not applicable: the argmax of 'best' at line {{[0-9]+}} keeps its position in 'at' of type 'I': a type that depends on a template parameter
