// REQUIRES: cuda
// Per-thread row reductions in several spellings and types: a sum, a max
// with fmaxf, a double min seeded with the row's first element, an int
// count under a condition, a norm in a grid-stride loop over rows, a
// reversed loop, a triangular bound (uniform within the warp: the warp runs
// one original thread) and a template. Each is a warp per row.

// RUN: forge-port propose %s --kernel row_sum --block 256 --rules=cooperative-row --apply -o %t.sum.cu
// RUN: FileCheck %s --check-prefix=SUM --match-full-lines --input-file=%t.sum.cu
// RUN: %nvcc -arch=sm_90 -ptx %t.sum.cu -o /dev/null
__global__ void row_sum(const float *in, float *out, int rows, int cols) {
  unsigned tid = blockIdx.x * blockDim.x + threadIdx.x;
  if (tid < rows) {
    float s = 0;
    for (int c = 0; c < cols; ++c)
      s += in[tid * cols + c];
    out[tid] = s;
  }
}
// SUM:        unsigned tid = orig_bid * blockDim.x + orig_tid;
// SUM:            for (int c = 4 * lane; c + 3 < cols; c += 128) {
// SUM-NEXT:         const float4 in_v = *reinterpret_cast<const float4 *>(&in[tid * cols + c]);
// SUM-NEXT:         s += in_v.x;
// SUM:          for (int offset = 16; offset > 0; offset /= 2)
// SUM-NEXT:       s += __shfl_xor_sync(0xffffffff, s, offset);
// SUM-NEXT:     if (lane == 0)
// SUM-NEXT:       out[tid] = s;

// RUN: forge-port propose %s --kernel row_max --block 256 --rules=cooperative-row --apply -o %t.max.cu
// RUN: FileCheck %s --check-prefix=MAX --match-full-lines --input-file=%t.max.cu
// RUN: %nvcc -arch=sm_90 -ptx %t.max.cu -o /dev/null
__global__ void row_max(const float *in, float *out, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    float m = -INFINITY;
    for (int c = 0; c < cols; ++c)
      m = fmaxf(m, in[r * cols + c]);
    out[r] = m;
  }
}
// MAX:            m = fmaxf(m, in_v.w);
// MAX:          for (int c = c_rest + lane; c < cols; c += 32)
// MAX-NEXT:       m = fmaxf(m, in[r * cols + c]);
// MAX-NEXT:   }
// MAX-NEXT:   // cooperative-row: the lanes' partial 'm' combined; every lane gets the result.
// MAX-NEXT:   for (int offset = 16; offset > 0; offset /= 2)
// MAX-NEXT:     m = fmaxf(m, __shfl_xor_sync(0xffffffff, m, offset));

// RUN: forge-port propose %s --kernel minrow --block 128 --rules=cooperative-row > %t.min.props
// RUN: FileCheck %s --check-prefix=MINWHY --input-file=%t.min.props
// RUN: forge-port propose %s --kernel minrow --block 128 --rules=cooperative-row --apply -o %t.min.cu
// RUN: FileCheck %s --check-prefix=MIN --match-full-lines --input-file=%t.min.cu
// RUN: %nvcc -arch=sm_90 -ptx %t.min.cu -o /dev/null
__global__ void minrow(const double *A, double *y, int m, int n) {
  const int tid = threadIdx.x, bid = blockIdx.x;
  const int row = bid * blockDim.x + tid;
  if (row >= m)
    return;
  double v = A[(size_t)row * n];
  for (int k = 1; k < n; k++)
    v = fmin(v, A[(size_t)row * n + k]);
  y[row] = v;
}
// MINWHY: # expert:cooperative-row: one warp per row for the row reduction (min) into 'v' (lanes stride over the row, shuffle reductions)
// MINWHY-NOT: re-associated
// MINWHY: <<<<<<< SEARCH
// MIN:        const int tid = orig_tid, bid = orig_bid;
// MIN:          int k_rest = 1;
// MIN-NEXT:     if ((((unsigned long long)(&A[(size_t)row * n + 1])) & 15) == 0) {
// MIN-NEXT:       #pragma unroll 4
// MIN-NEXT:       for (int k = 1 + 2 * lane; k + 1 < n; k += 64) {
// MIN-NEXT:         const double2 A_v = *reinterpret_cast<const double2 *>(&A[(size_t)row * n + k]);
// MIN-NEXT:         v = fmin(v, A_v.x);
// MIN-NEXT:         v = fmin(v, A_v.y);
// MIN-NEXT:       }
// MIN-NEXT:       k_rest = 1 + (n > 1 ? (n - 1) / 2 * 2 : 0);
// MIN-NEXT:     }
// MIN:        for (int offset = 16; offset > 0; offset /= 2)
// MIN-NEXT:     v = fmin(v, __shfl_xor_sync(0xffffffff, v, offset));

// RUN: forge-port propose %s --kernel count_pos --block 256 --rules=cooperative-row --apply -o %t.cnt.cu
// RUN: FileCheck %s --check-prefix=CNT --match-full-lines --input-file=%t.cnt.cu
// RUN: %nvcc -arch=sm_90 -ptx %t.cnt.cu -o /dev/null
__global__ void count_pos(const int *A, int *cnt, int m, int n) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < m) {
    int c = 0;
    for (int k = 0; k < n; ++k)
      if (A[row * n + k] > 0)
        c++;
    cnt[row] = c;
  }
}
// CNT:            const int4 A_v = *reinterpret_cast<const int4 *>(&A[row * n + k]);
// CNT-NEXT:         if (A_v.x > 0)
// CNT-NEXT:           c++;
// CNT:          for (int k = k_rest + lane; k < n; k += 32)
// CNT-NEXT:       if (A[row * n + k] > 0)
// CNT-NEXT:         c++;
// CNT:            c += __shfl_xor_sync(0xffffffff, c, offset);

// RUN: forge-port propose %s --kernel l2norm --block 256 --rules=cooperative-row --apply -o %t.norm.cu
// RUN: FileCheck %s --check-prefix=NORM --match-full-lines --input-file=%t.norm.cu
// RUN: %nvcc -arch=sm_90 -ptx %t.norm.cu -o /dev/null
__global__ void l2norm(const float *A, float *y, int m, int n) {
  for (int row = blockIdx.x * blockDim.x + threadIdx.x; row < m; row += blockDim.x * gridDim.x) {
    float s = 0;
    for (int k = 0; k < n; ++k) {
      float v = A[(size_t)row * n + k];
      s += v * v;
    }
    y[row] = sqrtf(s);
  }
}
// NORM:        for (int row = orig_bid * blockDim.x + orig_tid; row < m; row += blockDim.x * orig_grid) {
// NORM:              const float4 A_v = *reinterpret_cast<const float4 *>(&A[(size_t)row * n + k]);
// NORM-NEXT:         {
// NORM-NEXT:           float v = A_v.x;
// NORM-NEXT:           s += v * v;
// NORM-NEXT:         }
// NORM:          for (int k = k_rest + lane; k < n; k += 32) {
// NORM-NEXT:       float v = A[(size_t)row * n + k];
// NORM-NEXT:       s += v * v;
// NORM-NEXT:     }
// NORM:          if (lane == 0)
// NORM-NEXT:       y[row] = sqrtf(s);
// NORM-NEXT:   }
// NORM-NEXT: }

// RUN: forge-port propose %s --kernel rev --block 256 --rules=cooperative-row --apply -o %t.rev.cu
// RUN: FileCheck %s --check-prefix=REV --match-full-lines --input-file=%t.rev.cu
// RUN: %nvcc -arch=sm_90 -ptx %t.rev.cu -o /dev/null
__global__ void rev(const float *A, float *y, int m, int n) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < m) {
    float s = 0;
    for (int k = n - 1; k >= 0; --k)
      s += A[row * n + k];
    y[row] = s;
  }
}
// REV:          #pragma unroll 4
// REV-NEXT:     for (int k = (n - 1) - lane; k >= 0; k -= 32)
// REV-NEXT:       s += A[row * n + k];

// RUN: forge-port propose %s --kernel tri --block 256 --rules=cooperative-row --apply -o %t.tri.cu
// RUN: FileCheck %s --check-prefix=TRI --match-full-lines --input-file=%t.tri.cu
// RUN: %nvcc -arch=sm_90 -ptx %t.tri.cu -o /dev/null
__global__ void tri(const float *A, float *y, int n) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < n) {
    float s = 0;
    for (int k = 0; k <= row; ++k)
      s += A[row * n + k];
    y[row] = s;
  }
}
// TRI:          for (int k = lane; k <= row; k += 32)
// TRI-NEXT:       s += A[row * n + k];

// RUN: forge-port propose %s --kernel rowsum_t --block 256 --rules=cooperative-row --apply -o %t.tpl.cu
// RUN: FileCheck %s --check-prefix=TPL --match-full-lines --input-file=%t.tpl.cu
// RUN: %nvcc -arch=sm_90 -ptx %t.tpl.cu -o /dev/null
template <typename T>
__global__ void rowsum_t(const T *in, T *out, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    T acc = T(0);
    for (int c = 0; c < cols; ++c)
      acc += in[r * cols + c];
    out[r] = acc;
  }
}
template __global__ void rowsum_t<float>(const float *, float *, int, int);
template __global__ void rowsum_t<double>(const double *, double *, int, int);
// TPL:        int r = orig_bid * blockDim.x + orig_tid;
// TPL-NEXT:   if (r < rows) {
// TPL-NEXT:     T acc = T(0);
// TPL-NEXT:     #pragma unroll 4
// TPL-NEXT:     for (int c = lane; c < cols; c += 32)
// TPL-NEXT:       acc += in[r * cols + c];
// TPL-NEXT:     // cooperative-row: the lanes' partial 'acc' combined; every lane gets the result.
// TPL-NEXT:     for (int offset = 16; offset > 0; offset /= 2)
// TPL-NEXT:       acc += __shfl_xor_sync(0xffffffff, acc, offset);
// TPL-NEXT:     if (lane == 0)
// TPL-NEXT:       out[r] = acc;

// The index through a macro: the lanes share the loop (its header is plain
// text), and the vector copies of the body rename the loop variable in the
// macro's argument, which the body expands once (EditCollector::rangeOf).
// RUN: forge-port propose %s --kernel macro_idx --block 256 --rules=cooperative-row --apply -o %t.mac.cu
// RUN: FileCheck %s --check-prefix=MAC --match-full-lines --input-file=%t.mac.cu
// RUN: %nvcc -arch=sm_90 -ptx %t.mac.cu -o /dev/null
#define IDX(r, c) ((r) * n + (c))
__global__ void macro_idx(const float *A, float *y, int m, int n) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < m) {
    float s = 0;
    for (int k = 0; k < n; ++k)
      s += A[IDX(row, k)];
    y[row] = s;
  }
}
// MAC:       if ((((unsigned long long)(&A[IDX(row, 0)])) & 15) == 0) {
// MAC-NEXT:         #pragma unroll 4
// MAC-NEXT:         for (int k = 4 * lane; k + 3 < n; k += 128) {
// MAC-NEXT:           const float4 A_v = *reinterpret_cast<const float4 *>(&A[IDX(row, k)]);
// MAC:          #pragma unroll 4
// MAC-NEXT:     for (int k = k_rest + lane; k < n; k += 32)
// MAC-NEXT:       s += A[IDX(row, k)];

// The column is an argument the macro expands twice (a clamp): the vector
// copies would rename both expansions through one text, so the loop is
// shared by the lanes with the scalar loop only, and the rationale says why.
// RUN: forge-port propose %s --kernel macro_twice --block 256 --rules=cooperative-row > %t.mac2.props
// RUN: FileCheck %s --check-prefix=MACWHY --input-file=%t.mac2.props
// RUN: forge-port propose %s --kernel macro_twice --block 256 --rules=cooperative-row --apply -o %t.mac2.cu
// RUN: FileCheck %s --check-prefix=MAC2 --match-full-lines --input-file=%t.mac2.cu
// RUN: %nvcc -arch=sm_90 -ptx %t.mac2.cu -o /dev/null
#define CLAMPED(r, c) ((r) * n + ((c) < n ? (c) : n - 1))
__global__ void macro_twice(const float *A, float *y, int m, int n) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < m) {
    float s = 0;
    for (int k = 0; k < n; ++k)
      s += A[CLAMPED(row, k)];
    y[row] = s;
  }
}
// MACWHY: # {{.*}} Not vectorised: line {{[0-9]+}}: the loop variable is used inside a macro.{{.*}}
// MAC2:          #pragma unroll 4
// MAC2-NEXT:     for (int k = lane; k < n; k += 32)
// MAC2-NEXT:       s += A[CLAMPED(row, k)];

// A grid-stride loop over rows with the stride in a local, the row offset
// in another.
// RUN: forge-port propose %s --kernel stride_local --block 512 --rules=cooperative-row --apply -o %t.str.cu
// RUN: FileCheck %s --check-prefix=STR --match-full-lines --input-file=%t.str.cu
// RUN: %nvcc -arch=sm_90 -ptx %t.str.cu -o /dev/null
__global__ void stride_local(const float *A, float *y, int m, int n) {
  unsigned int row = blockDim.x * blockIdx.x + threadIdx.x;
  const unsigned int stride = blockDim.x * gridDim.x;
  for (; row < m; row += stride) {
    float s = 0;
    int off = row * n;
    for (int k = 0; k < n; ++k)
      s += A[off + k];
    y[row] = s;
  }
}
// STR:        unsigned int row = blockDim.x * orig_bid + orig_tid;
// STR-NEXT:   const unsigned int stride = blockDim.x * orig_grid;
// STR-NEXT:   for (; row < m; row += stride) {
// STR-NEXT:     float s = 0;
// STR-NEXT:     int off = row * n;
// STR:            if ((((unsigned long long)(&A[off + 0])) & 15) == 0) {
// STR:              const float4 A_v = *reinterpret_cast<const float4 *>(&A[off + k]);
// STR:            for (int k = k_rest + lane; k < n; k += 32)
// STR-NEXT:         s += A[off + k];
