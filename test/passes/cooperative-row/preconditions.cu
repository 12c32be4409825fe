// REQUIRES: cuda
// What the rule declines, each with its reason.
// RUN: not forge-port propose %s --kernel matvec_col --block 256 --rules=cooperative-row 2>&1 | FileCheck %s --check-prefix=COL
// RUN: not forge-port propose %s --kernel colnorm --block 256 --rules=cooperative-row 2>&1 | FileCheck %s --check-prefix=COLNORM
// RUN: not forge-port propose %s --kernel side --block 256 --rules=cooperative-row 2>&1 | FileCheck %s --check-prefix=SIDE
// RUN: not forge-port propose %s --kernel early --block 256 --rules=cooperative-row 2>&1 | FileCheck %s --check-prefix=EARLY
// RUN: not forge-port propose %s --kernel argmax_row --block 256 --rules=cooperative-row 2>&1 | FileCheck %s --check-prefix=ARGMAX
// RUN: not forge-port propose %s --kernel scale --block 256 --rules=cooperative-row 2>&1 | FileCheck %s --check-prefix=ELEM
// RUN: not forge-port propose %s --kernel staged --block 256 --rules=cooperative-row 2>&1 | FileCheck %s --check-prefix=SHARED
// RUN: not forge-port propose %s --kernel short_rows --block 256 --rules=cooperative-row 2>&1 | FileCheck %s --check-prefix=SHORT
// RUN: forge-port propose %s --kernel while_row --block 256 --rules=cooperative-row 2>&1 | FileCheck %s --check-prefix=WHILE
// RUN: not forge-port propose %s --kernel row_sum --block 100 --rules=cooperative-row 2>&1 | FileCheck %s --check-prefix=BLOCK
// RUN: not forge-port propose %s --kernel reread --block 256 --rules=cooperative-row 2>&1 | FileCheck %s --check-prefix=REREAD
// RUN: not forge-port propose %s --kernel debug --block 256 --rules=cooperative-row 2>&1 | FileCheck %s --check-prefix=PRINTF
// RUN: not forge-port propose %s --kernel counted --block 256 --rules=cooperative-row 2>&1 | FileCheck %s --check-prefix=ATOMIC

// Column-major: the warp already reads consecutive elements.
__global__ void matvec_col(const float *A, const float *x, float *y, int m, int n) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < m) {
    float sum = 0.0f;
    for (int k = 0; k < n; ++k)
      sum += A[k * m + row] * x[k];
    y[row] = sum;
  }
}
// COL: forge-port: note: cooperative-row: not applicable: the loop over 'k' at line {{[0-9]+}} reads 'A[k * m + row]', which is already coalesced across the warp (neighbouring threads read neighbouring elements); a warp per row would make it strided

__global__ void colnorm(const float *A, float *y, int m, int n) {
  int c = threadIdx.x + blockIdx.x * blockDim.x;
  if (c >= n)
    return;
  float s = 0;
  for (int r = 0; r < m; ++r)
    s += A[(size_t)r * n + c] * A[(size_t)r * n + c];
  y[c] = s;
}
// COLNORM: not applicable: the loop over 'r' at line {{[0-9]+}} reads 'A[(size_t)r * n + c]', which is already coalesced

// A write inside the loop at an element that does not move with it.
__global__ void side(const float *A, float *y, float *dbg, int m, int n) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < m) {
    float s = 0;
    for (int k = 0; k < n; ++k) {
      s += A[row * n + k];
      dbg[row] = s;
    }
    y[row] = s;
  }
}
// SIDE: not applicable: the row loop over 'k' at line {{[0-9]+}} carries 's' from one iteration to the next, and it is not a reduction over this loop with an associative operator (+, *, min, max, &, |, ^)

// A running sum written per element is a row scan: rewritten (scan.cu);
// its refusals are in scan-refusals.cu.

__global__ void early(const float *A, float *y, int m, int n) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < m) {
    float s = 0;
    for (int k = 0; k < n; ++k) {
      if (A[row * n + k] < 0)
        break;
      s += A[row * n + k];
    }
    y[row] = s;
  }
}
// EARLY: not applicable: the row loop over 'k' at line {{[0-9]+}} may leave early (break, return or goto): its lanes could not agree where the row ends

__global__ void argmax_row(const float *A, int *idx, int m, int n) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < m) {
    float best = A[row * n];
    int bi = 0;
    for (int k = 1; k < n; ++k)
      if (A[row * n + k] >= best) {
        best = A[row * n + k];
        bi = k;
      }
    idx[row] = bi;
  }
}
// ARGMAX: not applicable: the argmax of 'best' at line {{[0-9]+}} compares with '>=': with '>=' or '<=' the last of equal values wins, and the lanes' candidates would need to know which of them came last; only a strict comparison is rewritten

__global__ void scale(const float *a, float *b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    b[i] = 2 * a[i];
}
// ELEM: not applicable: no per-thread row loop

__global__ void staged(const float *A, float *y, int m, int n) {
  __shared__ float buf[256];
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  buf[threadIdx.x] = 1;
  __syncthreads();
  if (row < m) {
    float s = 0;
    for (int k = 0; k < n; ++k)
      s += A[row * n + k];
    y[row] = s * buf[threadIdx.x];
  }
}
// SHARED: not applicable: the kernel uses shared memory ('buf'): its threads cooperate already, and a warp per row would change who shares what

__global__ void short_rows(const float *A, float *y, int m) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < m) {
    float s = 0;
    for (int k = 0; k < 8; ++k)
      s += A[row * 8 + k];
    y[row] = s;
  }
}
// SHORT: not applicable: the loop over 'k' at line {{[0-9]+}} is a per-thread chunk of a compile-time size: too short for a warp

__global__ void while_row(const float *A, float *y, int m, int n) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < m) {
    float s = 0;
    int k = 0;
    while (k < n) {
      s += A[row * n + k];
      ++k;
    }
    y[row] = s;
  }
}
// A while loop counted by the statement before it and the step at its end
// is a row loop too (test/passes/cooperative-row/while.cu).
// WHILE: expert:cooperative-row: one warp per row
// WHILE: int k = lane;
// WHILE: while (k < n) {
// WHILE-NEXT: s += A[row * n + k];
// WHILE-NEXT: k += 32;

__global__ void row_sum(const float *in, float *out, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    float s = 0;
    for (int c = 0; c < cols; ++c)
      s += in[r * cols + c];
    out[r] = s;
  }
}
// BLOCK: not applicable: the block is 100x1x1: blockDim.x is not a multiple of 32, so no warp would lie within one row of threads

// The output, written by lane 0, is read back by every lane.
__global__ void reread(const float *A, float *y, float *z, int m, int n) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < m) {
    float s = 0;
    for (int k = 0; k < n; ++k)
      s += A[row * n + k];
    y[row] = s;
    float t = y[row] * 0.5f;
    z[row] = t;
  }
}
// REREAD: not applicable: 'y' is written outside the row loops (by one lane of the warp) and read by 'y[row]', which every lane runs

__global__ void debug(const float *A, float *y, int m, int n) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < m) {
    float s = 0;
    for (int k = 0; k < n; ++k)
      s += A[row * n + k];
    printf("%f\n", s);
    y[row] = s;
  }
}
// PRINTF: not applicable: the kernel calls 'printf', which synchronises or communicates between threads or has effects that a warp per row would repeat

// An atomic inside the row loop: a side effect besides the reduction.
__global__ void counted(const float *A, float *y, int *hits, int m, int n) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < m) {
    float s = 0;
    for (int k = 0; k < n; ++k) {
      s += A[row * n + k];
      atomicAdd(&hits[k], 1);
    }
    y[row] = s;
  }
}
// ATOMIC: not applicable: the row loop over 'k' at line {{[0-9]+}} updates 'atomicAdd(&hits[k], 1)' atomically: a side effect besides the reduction, which the rewrite does not move between threads
