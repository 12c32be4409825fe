// REQUIRES: cuda
// The fourth proposal (after the two block-tiled ones and two-level tiling), register tiling alone: each thread computes 4 rows
// of C, blockDim.y apart, loading each element of B once for all of them
// (several multiply-adds per load of B in the PTX). An early return and an
// alpha/beta epilogue are kept as written, for each row.
// RUN: forge-port propose %s --kernel gemm --block 16,16 --rules=register-tiling --format=json > %t.json
// RUN: %python %S/../../Inputs/apply_proposal.py %t.json 3 %s > %t.cu
// RUN: FileCheck %s --check-prefix=FIX --match-full-lines --input-file=%t.cu
// RUN: %nvcc -arch=sm_90 -ptx %t.cu -o %t.ptx
// RUN: FileCheck %s --check-prefix=PTX --input-file=%t.ptx
// The k loop: one load of B, then the 4 rows' loads of A and multiply-adds.
// PTX: ld.global.f32 [[B:%f[0-9]+]],
// PTX-COUNT-4: fma.rn.f32 {{.*}}[[B]],
__global__ void gemm(int m, int n, int k, float alpha, const float *A, const float *B,
                     float beta, float *C) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= m || col >= n)
    return;
  float acc = 0.0f;
  for (int p = 0; p < k; p++)
    acc += A[row * k + p] * B[p * n + col];
  C[row * n + col] = alpha * acc + beta * C[row * n + col];
}
// FIX:        int row = blockIdx.y * blockDim.y * 4 + threadIdx.y;
// FIX-NEXT:   int col = blockIdx.x * blockDim.x + threadIdx.x;
// FIX-NEXT:   // register-tiling: 4 rows of C per thread, blockDim.y apart; each element of B
// FIX-NEXT:   // loaded serves all 4.
// FIX-NEXT:   float rt_acc[4];
// FIX-NEXT:   bool rt_ok[4];
// FIX-NEXT: #pragma unroll
// FIX-NEXT:   for (int rt_r = 0; rt_r < 4; ++rt_r) {
// FIX-NEXT:     int rt_row = row + rt_r * blockDim.y;
// FIX-NEXT:     rt_ok[rt_r] = !(rt_row >= m) && !(col >= n);
// FIX-NEXT:     rt_acc[rt_r] = 0.0f;
// FIX-NEXT:   }
// FIX-NEXT:   if (rt_ok[0] || rt_ok[1] || rt_ok[2] || rt_ok[3]) {
// FIX-NEXT:     for (int p = 0; p < k; p++) {
// FIX-NEXT:       float rt_b = B[p * n + col];
// FIX-NEXT: #pragma unroll
// FIX-NEXT:       for (int rt_r = 0; rt_r < 4; ++rt_r) {
// FIX-NEXT:         int rt_row = row + rt_r * blockDim.y;
// FIX-NEXT:         if (rt_ok[rt_r])
// FIX-NEXT:           rt_acc[rt_r] += A[rt_row * k + p] * rt_b;
// FIX-NEXT:       }
// FIX-NEXT:     }
// FIX-NEXT:   }
// FIX-NEXT: #pragma unroll
// FIX-NEXT:   for (int rt_r = 0; rt_r < 4; ++rt_r) {
// FIX-NEXT:     int rt_row = row + rt_r * blockDim.y;
// FIX-NEXT:     if (rt_ok[rt_r])
// FIX-NEXT:       C[rt_row * n + col] = alpha * rt_acc[rt_r] + beta * C[rt_row * n + col];
// FIX-NEXT:   }
// FIX-NEXT: }
