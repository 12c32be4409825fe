// REQUIRES: cuda
// Matrix-vector products written one thread per row, in several spellings:
// each becomes a warp per row (lanes stride over the row, float4 while the
// row is 16-byte aligned, a shuffle butterfly, lane 0 writes).
//
// The spec's grid grows by 32; the block variant is the second proposal.
// RUN: forge-port propose %s --spec %S/Inputs/matvec.json --rules=cooperative-row \
// RUN:   > %t.props 2> %t.notes
// RUN: FileCheck %s --check-prefix=WHY --input-file=%t.props
// WHY: # expert:cooperative-row: one warp per row for the matrix-vector product y = A * x (lanes stride over the row, shuffle reductions)
// WHY: # A per-thread matrix-vector product y = A * x: {{.*}}('A[row * n + k]' (strided by n)){{.*}} The floating-point sums are re-associated {{.*}}
// WHY-NEXT: # spec: grid.x -> (ceil_div(M, BLOCK)) * 32
// WHY-NEXT: # spec: why: each warp of the rewritten kernel runs one thread of the original {{.*}}
// WHY: # expert:cooperative-row: one block per row for the matrix-vector product y = A * x (a block reduction)
// WHY: # spec: grid.x -> (ceil_div(M, BLOCK)) * (BLOCK)
//
// RUN: forge-port propose %s --spec %S/Inputs/matvec.json --rules=cooperative-row \
// RUN:   --apply -o %t.cu 2>&1 | FileCheck %s --check-prefix=NOTE
// RUN: FileCheck %s --check-prefix=FIX --match-full-lines --input-file=%t.cu
// RUN: %nvcc -arch=sm_90 -ptx %t.cu -o - | FileCheck %s --check-prefix=PTX
// NOTE: forge-port: note: applied expert:cooperative-row: one warp per row for the matrix-vector product y = A * x (lanes stride over the row, shuffle reductions)
// PTX-LABEL: .entry {{.*}}matvec
// PTX: ld.global.v4.f32
// PTX-COUNT-5: shfl.sync.bfly.b32

__global__ void matvec(const float *A, const float *x, float *y, int m, int n) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < m) {
    float sum = 0.0f;
    for (int k = 0; k < n; ++k)
      sum += A[row * n + k] * x[k];
    y[row] = sum;
  }
}
// FIX:      __global__ void matvec(const float *A, const float *x, float *y, int m, int n) {
// FIX:        if (blockDim.x % 32 != 0) {
// FIX-NEXT:     // Not whole warps: the original code, one thread per row,
// FIX-NEXT:     // on the original grid.
// FIX-NEXT:     if (blockIdx.x >= gridDim.x / 32)
// FIX-NEXT:       return;
// FIX-NEXT:     int row = blockIdx.x * blockDim.x + threadIdx.x;
// FIX:          return;
// FIX-NEXT:   }
// FIX-NEXT:   const int lane = threadIdx.x % 32;
// FIX-NEXT:   // The original thread this warp runs: its threadIdx.x, blockIdx.x and gridDim.x.
// FIX-NEXT:   const unsigned int warp_id = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
// FIX-NEXT:   const unsigned int orig_tid = warp_id % blockDim.x;
// FIX-NEXT:   const unsigned int orig_bid = warp_id / blockDim.x;
// FIX-NEXT:   const unsigned int orig_grid = gridDim.x / 32;
// FIX-NEXT:   if (orig_bid >= orig_grid)
// FIX-NEXT:     return;
// FIX-NEXT:   int row = orig_bid * blockDim.x + orig_tid;
// FIX-NEXT:   if (row < m) {
// FIX-NEXT:     float sum = 0.0f;
// FIX-NEXT:     {
// FIX-NEXT:       // cooperative-row: 4 elements per lane and step while the row is 16-byte
// FIX-NEXT:       // aligned, then one at a time.
// FIX-NEXT:       int k_rest = 0;
// FIX-NEXT:       if ((((unsigned long long)(&A[row * n + 0]) | (unsigned long long)(&x[0])) & 15) == 0) {
// FIX-NEXT:         #pragma unroll 4
// FIX-NEXT:         for (int k = 4 * lane; k + 3 < n; k += 128) {
// FIX-NEXT:           const float4 A_v = *reinterpret_cast<const float4 *>(&A[row * n + k]);
// FIX-NEXT:           const float4 x_v = *reinterpret_cast<const float4 *>(&x[k]);
// FIX-NEXT:           sum += A_v.x * x_v.x;
// FIX-NEXT:           sum += A_v.y * x_v.y;
// FIX-NEXT:           sum += A_v.z * x_v.z;
// FIX-NEXT:           sum += A_v.w * x_v.w;
// FIX-NEXT:         }
// FIX-NEXT:         k_rest = n > 0 ? n / 4 * 4 : 0;
// FIX-NEXT:       }
// FIX-NEXT:       #pragma unroll 4
// FIX-NEXT:       for (int k = k_rest + lane; k < n; k += 32)
// FIX-NEXT:         sum += A[row * n + k] * x[k];
// FIX-NEXT:     }
// FIX-NEXT:     // cooperative-row: the lanes' partial 'sum' combined; every lane gets the result.
// FIX-NEXT:     for (int offset = 16; offset > 0; offset /= 2)
// FIX-NEXT:       sum += __shfl_xor_sync(0xffffffff, sum, offset);
// FIX-NEXT:     if (lane == 0)
// FIX-NEXT:       y[row] = sum;
// FIX-NEXT:   }
// FIX-NEXT: }

// size_t indices, double, `if (r >= rows) return;`, threadIdx first.
// RUN: forge-port propose %s --kernel matvec_sz --block 128 --rules=cooperative-row \
// RUN:   --apply -o %t.sz.cu
// RUN: FileCheck %s --check-prefix=SZ --match-full-lines --input-file=%t.sz.cu
// RUN: %nvcc -arch=sm_90 -ptx %t.sz.cu -o - | FileCheck %s --check-prefix=SZPTX
// SZPTX-LABEL: .entry {{.*}}matvec_sz
// SZPTX: ld.global.v2.f64
// SZPTX: shfl.sync.bfly.b32
__global__ void matvec_sz(const double *__restrict__ A, const double *__restrict__ x,
                          double *__restrict__ y, size_t rows, size_t cols) {
  size_t r = threadIdx.x + (size_t)blockDim.x * blockIdx.x;
  if (r >= rows) return;
  double acc = 0;
  for (size_t j = 0; j < cols; j++) {
    acc += A[r * cols + j] * x[j];
  }
  y[r] = acc;
}
// SZ:        size_t r = orig_tid + (size_t)blockDim.x * orig_bid;
// SZ-NEXT:   if (r >= rows) return;
// SZ-NEXT:   double acc = 0;
// SZ:            for (size_t j = 2 * lane; j + 1 < cols; j += 64) {
// SZ-NEXT:         const double2 A_v = *reinterpret_cast<const double2 *>(&A[r * cols + j]);
// SZ-NEXT:         const double2 x_v = *reinterpret_cast<const double2 *>(&x[j]);
// SZ:            for (size_t j = j_rest + lane; j < cols; j += 32) {
// SZ-NEXT:         acc += A[r * cols + j] * x[j];
// SZ-NEXT:       }
// SZ:          for (int offset = 16; offset > 0; offset /= 2)
// SZ-NEXT:     acc += __shfl_xor_sync(0xffffffff, acc, offset);
// SZ-NEXT:   if (lane == 0)
// SZ-NEXT:     y[r] = acc;

// A row pointer `A + i * n`, the product read through it.
// RUN: forge-port propose %s --kernel matvec_ptr --block 256 --rules=cooperative-row \
// RUN:   --apply -o %t.ptr.cu
// RUN: FileCheck %s --check-prefix=PTR --match-full-lines --input-file=%t.ptr.cu
// RUN: %nvcc -arch=sm_90 -ptx %t.ptr.cu -o /dev/null
__global__ void matvec_ptr(const float *A, const float *x, float *y, int m, int n) {
  int i = threadIdx.x + blockIdx.x * blockDim.x;
  if (i >= m)
    return;
  const float *a = A + i * n;
  float s = 0.f;
  for (int k = 0; k < n; k++)
    s += a[k] * x[k];
  y[i] = s;
}
// PTR:        int i = orig_tid + orig_bid * blockDim.x;
// PTR-NEXT:   if (i >= m)
// PTR-NEXT:     return;
// PTR-NEXT:   const float *a = A + i * n;
// PTR-NEXT:   float s = 0.f;
// PTR:          if ((((unsigned long long)(&a[0]) | (unsigned long long)(&x[0])) & 15) == 0) {
// PTR:            const float4 a_v = *reinterpret_cast<const float4 *>(&a[k]);
// PTR:          for (int k = k_rest + lane; k < n; k += 32)
// PTR-NEXT:       s += a[k] * x[k];
// PTR:        if (lane == 0)
// PTR-NEXT:     y[i] = s;

// The accumulator starts from a loaded bias: the lanes other than 0 start
// from 0, so the bias is counted once.
// RUN: forge-port propose %s --kernel bias_mv --block 64 --rules=cooperative-row \
// RUN:   --apply -o %t.bias.cu
// RUN: FileCheck %s --check-prefix=BIAS --match-full-lines --input-file=%t.bias.cu
// RUN: %nvcc -arch=sm_90 -ptx %t.bias.cu -o /dev/null
__global__ void bias_mv(const float *A, const float *x, const float *b, float *y, int m,
                        int n) {
  const unsigned row = blockDim.x * blockIdx.x + threadIdx.x;
  if (row < m) {
    float s = b[row];
    for (unsigned k = 0; k < n; ++k)
      s += A[row * n + k] * x[k];
    y[row] = s;
  }
}
// BIAS:        const unsigned row = blockDim.x * orig_bid + orig_tid;
// BIAS-NEXT:   if (row < m) {
// BIAS-NEXT:     float s = b[row];
// BIAS-NEXT:     if (lane != 0)
// BIAS-NEXT:       s = 0;
// BIAS:          for (int offset = 16; offset > 0; offset /= 2)
// BIAS-NEXT:       s += __shfl_xor_sync(0xffffffff, s, offset);
// BIAS-NEXT:     if (lane == 0)
// BIAS-NEXT:       y[row] = s;

// Loads through __ldg (an address-of and a pointer sum): the vectors too.
// RUN: forge-port propose %s --kernel ldg_mv --block 256 --rules=cooperative-row --apply -o %t.ldg.cu
// RUN: FileCheck %s --check-prefix=LDG --match-full-lines --input-file=%t.ldg.cu
// RUN: %nvcc -arch=sm_90 -ptx %t.ldg.cu -o - | FileCheck %s --check-prefix=LDGPTX
// LDGPTX-LABEL: .entry {{.*}}ldg_mv
// LDGPTX: ld.global.nc.v4.f32
__global__ void ldg_mv(const float *__restrict__ A, const float *__restrict__ x, float *y, int m,
                       int n) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < m) {
    float s = 0;
    for (int k = 0; k < n; ++k)
      s += __ldg(&A[row * n + k]) * __ldg(x + k);
    y[row] = s;
  }
}
// LDG:              const float4 A_v = __ldg(reinterpret_cast<const float4 *>(&A[row * n + k]));
// LDG-NEXT:         const float4 x_v = __ldg(reinterpret_cast<const float4 *>(x + k));
// LDG-NEXT:         s += A_v.x * x_v.x;
// LDG:            for (int k = k_rest + lane; k < n; k += 32)
// LDG-NEXT:         s += __ldg(&A[row * n + k]) * __ldg(x + k);
