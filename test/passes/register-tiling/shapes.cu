// REQUIRES: cuda
// Products the model recognises beyond the benchmark's spelling get the
// block-tiled rewrite first, and it compiles without spills: the batched
// SGEMM (blockIdx.z batch, operand pointers through locals hoisted before
// the block-uniform `b < batch` early return) and a textbook GEMM whose
// loop and store sit under two separate, identical bounds checks.
// RUN: forge-port propose %s --kernel sgemm_batched --block 16,16 --rules=register-tiling --apply -o %t.batched.cu 2>&1 | FileCheck %s --check-prefix=NOTE
// RUN: FileCheck %s --check-prefix=BATCHED --match-full-lines --input-file=%t.batched.cu
// RUN: %nvcc -arch=sm_90 -O3 -Xptxas -v -c %t.batched.cu -o %t.batched.o 2>&1 | FileCheck %s --check-prefix=REGS
// RUN: forge-port propose %s --kernel pmpp --block 16,16 --rules=register-tiling --apply -o %t.pmpp.cu 2>&1 | FileCheck %s --check-prefix=NOTE
// RUN: FileCheck %s --check-prefix=PMPP --match-full-lines --input-file=%t.pmpp.cu
// RUN: %nvcc -arch=sm_90 -O3 -Xptxas -v -c %t.pmpp.cu -o %t.pmpp.o 2>&1 | FileCheck %s --check-prefix=REGS
// NOTE: forge-port: note: applied expert:register-tiling: block-tiled 128 x 128
// REGS: 0 bytes spill stores, 0 bytes spill loads
// REGS: Used {{([0-9]|[0-9][0-9]|1[01][0-9]|12[0-8])}} registers

__global__ void sgemm_batched(const float *A, const float *B, float *C, int n,
                              int batch) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int b = blockIdx.z;
  if (row < n && col < n && b < batch) {
    const float *a = A + (size_t)b * n * n;
    const float *bm = B + (size_t)b * n * n;
    float acc = 0.0f;
    for (int p = 0; p < n; ++p)
      acc += a[(size_t)row * n + p] * bm[(size_t)p * n + col];
    C[(size_t)b * n * n + (size_t)row * n + col] = acc;
  }
}
// BATCHED:      __global__ void __launch_bounds__(256, 2) sgemm_batched(const float *A, const float *B, float *C, int n,
// BATCHED-NEXT:                               int batch) {
// BATCHED-NEXT:   int b = blockIdx.z;
// BATCHED-NEXT:   const float *a = A + (size_t)b * n * n;
// BATCHED-NEXT:   const float *bm = B + (size_t)b * n * n;
// BATCHED-NEXT:   if (!((b < batch)))
// BATCHED-NEXT:     return; // the same for the whole block
// BATCHED-NEXT:   // register-tiling: a 128 x 128 tile of C per block of 256 threads, 8 x 8 outputs per thread;
// BATCHED:        const bool rt_va = (n) % 4 == 0 && reinterpret_cast<unsigned long long>(&a[(size_t)0 * n + 0]) % 16 == 0 && (&a[(size_t)1 * n + 0] - &a[(size_t)0 * n + 0]) % 4 == 0;
// BATCHED:              if ((rt_row < n) && (rt_col < n))
// BATCHED-NEXT:           C[(size_t)b * n * n + (size_t)rt_row * n + rt_col] = rt_acc[rt_i][rt_j];

__global__ void pmpp(const float *A, const float *B, float *C, int m, int n, int k) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  float acc = 0;
  if (row < m && col < n) {
    for (int p = 0; p < k; ++p)
      acc += A[row * k + p] * B[p * n + col];
  }
  if (row < m && col < n)
    C[row * n + col] = acc;
}
// PMPP:      __global__ void __launch_bounds__(256, 2) pmpp(const float *A, const float *B, float *C, int m, int n, int k) {
// PMPP-NEXT:   // register-tiling: a 128 x 128 tile of C per block of 256 threads, 8 x 8 outputs per thread;
// PMPP:              rt_acc[rt_i][rt_j] = 0;
// PMPP:              rt_acc[rt_i][rt_j] += rt_a[rt_i] * rt_b[rt_j];
// PMPP:            if ((rt_row < m) && (rt_col < n))
// PMPP-NEXT:         C[rt_row * n + rt_col] = rt_acc[rt_i][rt_j];
// PMPP-NEXT:     }
// PMPP-NEXT: }
