// REQUIRES: cuda
// The benchmark's naive SGEMM (utils/bench/kernels/sgemm.cu) with its spec:
// first proposal, two-level tiling (a 128 x 128 tile of C per block, A and
// B through shared memory, 8 x 8 accumulators per thread) with the grid
// shrunk by 8 in x and y through a spec change.
// RUN: forge-port propose %s --spec %S/Inputs/sgemm.json --rules=register-tiling > %t.props
// RUN: FileCheck %s --check-prefix=WHY --input-file=%t.props
// RUN: forge-port propose %s --spec %S/Inputs/sgemm.json --rules=register-tiling \
// RUN:   --apply -o %t.cu 2>&1 | FileCheck %s --check-prefix=NOTE
// RUN: FileCheck %s --check-prefix=FIX --match-full-lines --input-file=%t.cu
// RUN: %nvcc -arch=sm_90 -ptx %t.cu -o %t.ptx
// RUN: FileCheck %s --check-prefix=PTX --input-file=%t.ptx
// WHY: # expert:register-tiling: a 128 x 128 tile of C per block: A and B staged in shared memory, 8 x 8 outputs per thread
// WHY: global loads per multiply-add 2 -> 0.016
// WHY: # spec: grid.x -> ceil_div(ceil_div(N, BX), 8)
// WHY: # spec: grid.y -> ceil_div(ceil_div(M, BLOCK / BX), 8)
// WHY: # expert:register-tiling: 4 rows of C per thread (blockDim.y apart), each load of B shared by them
// WHY: # spec: grid.y -> ceil_div(ceil_div(M, BLOCK / BX), 4)
// NOTE: forge-port: note: applied expert:register-tiling: a 128 x 128 tile of C per block
// NOTE: forge-port: note: register-tiling: spec: grid.x -> ceil_div(ceil_div(N, BX), 8)
// NOTE: forge-port: note: register-tiling: spec: grid.y -> ceil_div(ceil_div(M, BLOCK / BX), 8)
// The unrolled inner step: 64 multiply-adds from 16 shared-memory loads.
// PTX: st.shared.f32
// PTX: bar.sync
// PTX: ld.shared
// PTX-COUNT-64: fma.rn.f32
// PTX: bar.sync
__global__ void sgemm(const float *A, const float *B, float *C, int m, int n,
                      int k) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row < m && col < n) {
    float acc = 0.0f;
    for (int p = 0; p < k; ++p)
      acc += A[(size_t)row * k + p] * B[(size_t)p * n + col];
    C[(size_t)row * n + col] = acc;
  }
}
// FIX:        int col = blockIdx.x * 128 + threadIdx.x;
// FIX-NEXT:   int row = blockIdx.y * 128 + threadIdx.y;
// FIX-NEXT:   // register-tiling: a 128 x 128 tile of C per block, 8 x 8 outputs per thread
// FIX-NEXT:   // (rows 16 apart, columns 16 apart); A and B pass through shared memory 16 at a time.
// FIX-NEXT:   if (blockDim.x != 16 || blockDim.y != 16 || blockDim.z != 1)
// FIX-NEXT:     __trap(); // register-tiling: sized for this block shape only
// FIX-NEXT:   __shared__ float rt_As[128][16];
// FIX-NEXT:   __shared__ float rt_Bs[16][128];
// FIX-NEXT:   float rt_acc[8][8];
// FIX:        for (int rt_k0 = 0; rt_k0 < k; rt_k0 += 16) {
// FIX:            rt_As[rt_i][rt_kk] = rt_row < m && rt_p < k ? A[(size_t)rt_row * k + rt_p] : 0.0f;
// FIX:            rt_Bs[rt_kk][rt_j] = rt_p < k && rt_col < n ? B[(size_t)rt_p * n + rt_col] : 0.0f;
// FIX:              rt_acc[rt_i][rt_j] += rt_a[rt_i] * rt_b[rt_j];
// FIX:          int rt_row = row + rt_i * 16;
// FIX-NEXT:     int rt_col = col + rt_j * 16;
// FIX-NEXT:     if (rt_row < m && rt_col < n)
// FIX-NEXT:       C[(size_t)rt_row * n + rt_col] = rt_acc[rt_i][rt_j];
// FIX-NEXT:   }
// FIX-NEXT: }
