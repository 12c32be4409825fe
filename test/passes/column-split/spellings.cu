// REQUIRES: cuda
// Column loops written in several ways, each launched in this file with far
// fewer threads than the GPU holds (the thread count comes from the launch's
// constant grid and block). Each is split over the warps of its block, and
// each rewrite compiles with nvcc.
//
// size_t indices and a flat index that walks the column by a stride of cols.
// RUN: forge-port propose %s --kernel colsum_flat --rules=column-split --apply -o %t.flat.cu 2>&1 | FileCheck %s --check-prefix=NOTE
// RUN: FileCheck %s --check-prefix=FLAT --input-file=%t.flat.cu
// RUN: %nvcc -arch=sm_90 -c %t.flat.cu -o /dev/null
// NOTE: applied expert:column-split: the column loop over
__global__ void colsum_flat(const float *a, float *out, size_t rows, size_t cols) {
  size_t j = threadIdx.x + (size_t)blockIdx.x * blockDim.x;
  if (j >= cols) return;
  float s = 0.f;
  for (size_t k = j; k < rows * cols; k += cols) s += a[k];
  out[j] = s * 0.5f;
}
// FLAT-LABEL: void colsum_flat(
// FLAT:      size_t j = orig_tid + (size_t)orig_bid * blockDim.x;
// FLAT:      for (size_t k = j + slice * cols; k < rows * cols; k += slices * cols) s += a[k];
// FLAT:      s_part[threadIdx.x] = s;
// FLAT:      for (int k2 = 1; k2 < slices; ++k2)
// FLAT-NEXT:   s += s_part[k2 * 32 + lane];
// FLAT-NEXT: }
// FLAT-NEXT: out[j] = s * 0.5f;

// A while loop, the row counter started right before it.
// RUN: forge-port propose %s --kernel colsum_while --rules=column-split --apply -o %t.while.cu
// RUN: FileCheck %s --check-prefix=WHILE --input-file=%t.while.cu
// RUN: %nvcc -arch=sm_90 -c %t.while.cu -o /dev/null
__global__ void colsum_while(const int *a, long long *out, int rows, int cols) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= cols) return;
  long long s = 0;
  int r = 0;
  while (r < rows) {
    s += a[r * cols + j];
    r++;
  }
  out[j] = s;
}
// WHILE-LABEL: void colsum_while(
// WHILE:      __shared__ long long s_part[1024];
// WHILE:      long long s = 0;
// WHILE-NEXT: int r = slice;
// WHILE-NEXT: {
// WHILE-NEXT:   while (r < rows) {
// WHILE-NEXT:     s += a[r * cols + j];
// WHILE-NEXT:     r += slices;
// WHILE-NEXT:   }
// WHILE:        s += s_part[k * 32 + lane];

// A pointer walking the column (stepped in the body), a max reduction and
// an expression after the loop.
// RUN: forge-port propose %s --kernel colmax_ptr --rules=column-split --apply -o %t.ptr.cu
// RUN: FileCheck %s --check-prefix=PTR --input-file=%t.ptr.cu
// RUN: %nvcc -arch=sm_90 -c %t.ptr.cu -o /dev/null
__global__ void colmax_ptr(const float *a, float *out, int rows, int cols) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j < cols) {
    const float *p = a + j;
    float m = -1e30f;
    for (int r = 0; r < rows; ++r) {
      m = fmaxf(m, *p);
      p += cols;
    }
    out[j] = fmaxf(m, 0.f);
  }
}
// The walk: p starts slice rows down and steps slices rows.
// PTR-LABEL: void colmax_ptr(
// PTR:        __syncthreads();
// PTR:        const float *p = a + j;
// PTR-NEXT:   float m = -1e30f;
// PTR-NEXT:   {
// PTR-NEXT:     p += slice * cols;
// PTR-NEXT:     for (int r = slice; r < rows; r += slices) {
// PTR-NEXT:       m = fmaxf(m, *p);
// PTR-NEXT:       p += slices * cols;
// PTR-NEXT:     }
// PTR-NOT:      if (slice != 0)
// PTR:          m = m_part[lane];
// PTR-NEXT:     for (int k = 1; k < slices; ++k)
// PTR-NEXT:       m = fmaxf(m, m_part[k * 32 + lane]);
// PTR-NEXT:   }
// PTR-NEXT:   out[j] = fmaxf(m, 0.f);

// The walk in the for's increment, a pointer as the loop variable.
// RUN: forge-port propose %s --kernel colsum_ptrfor --rules=column-split --apply -o %t.pf.cu
// RUN: FileCheck %s --check-prefix=PF --input-file=%t.pf.cu
// RUN: %nvcc -arch=sm_90 -c %t.pf.cu -o /dev/null
__global__ void colsum_ptrfor(const float *a, const float *bias, float *out, int rows, int cols) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= cols) return;
  float s = bias[j];
  const float *q = a + j;
  for (int r = 0; r < rows; ++r, q += cols) s += *q * 2.0f;
  out[j] = s;
}
// PF-LABEL: void colsum_ptrfor(
// PF:        __syncthreads();
// PF:        float s = bias[j];
// PF-NEXT:   const float *q = a + j;
// PF-NEXT:   {
// PF-NEXT:     q += slice * cols;
// PF-NEXT:     if (slice != 0) s = 0; // the value before the loop counts once
// PF-NEXT:     for (int r = slice; r < rows; r += slices, q += slices * cols) s += *q * 2.0f;

// A 2D grid (a batch of matrices along y), double, a product and a count
// under #pragma unroll.
// RUN: forge-port propose %s --kernel batched --rules=column-split --apply -o %t.b.cu
// RUN: FileCheck %s --check-prefix=BATCH --input-file=%t.b.cu
// RUN: %nvcc -arch=sm_90 -c %t.b.cu -o /dev/null
__global__ void batched(const double *a, double *out, int rows, int cols) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  int b = blockIdx.y;
  if (j >= cols) return;
  double p = 1.0;
  int n = 0;
  #pragma unroll 4
  for (int r = 0; r < rows; ++r) {
    double v = a[((size_t)b * rows + r) * cols + j];
    p *= v;
    n += v > 0;
  }
  out[(size_t)b * cols + j] = p * n;
}
// BATCH-LABEL: void batched(
// BATCH:        int j = orig_bid * blockDim.x + orig_tid;
// BATCH-NEXT:   int b = blockIdx.y;
// BATCH:        {
// BATCH-NEXT:     #pragma unroll 4
// BATCH-NEXT:     for (int r = slice; r < rows; r += slices) {
// BATCH:          p_part[threadIdx.x] = p;
// BATCH-NEXT:     n_part[threadIdx.x] = n;
// BATCH:          for (int k = 1; k < slices; ++k) {
// BATCH-NEXT:       p *= p_part[k * 32 + lane];
// BATCH-NEXT:       n += n_part[k * 32 + lane];
// BATCH-NEXT:     }

// A template kernel with a min over a ternary, launched with a 128 block.
// RUN: forge-port propose %s --kernel colmin --rules=column-split --apply -o %t.t.cu
// RUN: FileCheck %s --check-prefix=TMPL --input-file=%t.t.cu
// RUN: %nvcc -arch=sm_90 -c %t.t.cu -o /dev/null
template <typename T>
__global__ void colmin(const T *a, T *out, int rows, int cols) {
  unsigned j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j < cols) {
    T m = a[j];
    for (int r = 1; r < rows; r++) {
      T v = a[(size_t)r * cols + j];
      m = v < m ? v : m;
    }
    out[j] = m;
  }
}
// TMPL-LABEL: void colmin(
// TMPL:      __shared__ T m_part[1024];
// TMPL:      for (int r = 1 + slice; r < rows; r += slices) {
// TMPL:      m = m_part[k * 32 + lane] < m ? m_part[k * 32 + lane] : m;

void host(const float *a, const float *bias, float *out, const int *ia, long long *lout,
          const double *da, double *dout, const unsigned *ua, unsigned *uout) {
  colsum_flat<<<dim3(16), dim3(256)>>>(a, out, 16384, 4096);
  const int cols = 4096;
  colsum_while<<<(cols + 255) / 256, 256>>>(ia, lout, 16384, cols);
  colmax_ptr<<<16, 256>>>(a, out, 16384, 4096);
  colsum_ptrfor<<<16, 256>>>(a, bias, out, 16384, 4096);
  batched<<<dim3(16, 4), 256>>>(da, dout, 8192, 4096);
  colmin<unsigned><<<32, 128>>>(ua, uout, 16384, 4096);
}
