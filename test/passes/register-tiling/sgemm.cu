// REQUIRES: cuda
// The benchmark's naive SGEMM (utils/bench/kernels/sgemm.cu) with its spec.
// First proposal, block-tiled 128 x 128: 256 threads, 8 x 8 outputs per
// thread, A stored transposed and B in two shared-memory stages, float4
// shared-memory loads, float4 global loads behind a per-block check, the
// grid one block per 128 x 128 tile through a spec change (robust to any
// block shape) and the block pinned at 256 threads by a new constraint. Then block-tiled
// 64 x 64, two-level tiling (checked as the third proposal) and four rows
// per thread.
// RUN: forge-port propose %s --spec %S/Inputs/sgemm.json --rules=register-tiling > %t.props
// RUN: FileCheck %s --check-prefix=WHY --input-file=%t.props
// RUN: forge-port propose %s --spec %S/Inputs/sgemm.json --rules=register-tiling \
// RUN:   --apply -o %t.cu 2>&1 | FileCheck %s --check-prefix=NOTE
// RUN: FileCheck %s --check-prefix=FIX --match-full-lines --input-file=%t.cu
// RUN: %nvcc -arch=sm_90 -O3 -ptx %t.cu -o %t.ptx
// RUN: FileCheck %s --check-prefix=PTX --input-file=%t.ptx
// RUN: %nvcc -arch=sm_90 -O3 -Xptxas -v -cubin %t.cu -o %t.cubin 2>&1 | FileCheck %s --check-prefix=REGS
// RUN: forge-port propose %s --spec %S/Inputs/sgemm.json --rules=register-tiling --format=json > %t.json
// RUN: %python %S/../../Inputs/apply_proposal.py %t.json 2 %s > %t2.cu
// RUN: FileCheck %s --check-prefix=TWO --match-full-lines --input-file=%t2.cu
// RUN: %nvcc -arch=sm_90 -ptx %t2.cu -o %t2.ptx
// RUN: FileCheck %s --check-prefix=PTX2 --input-file=%t2.ptx
// WHY: # expert:register-tiling: block-tiled 128 x 128: 256 threads, 8 x 8 outputs each, double-buffered shared tiles, float4 loads
// WHY: (A: along k, B: along its columns)
// WHY: # spec: grid.x -> ceil_div((ceil_div(N, BX)) * (BX), 128)
// WHY: # spec: grid.y -> ceil_div((ceil_div(M, BLOCK / BX)) * (BLOCK / BX), 128)
// WHY: # spec: new constraint (BX) * (BLOCK / BX) * (1) == 256
// WHY: # expert:register-tiling: block-tiled 64 x 64: 256 threads, 4 x 4 outputs each, double-buffered shared tiles, float4 loads
// WHY: # spec: grid.x -> ceil_div((ceil_div(N, BX)) * (BX), 64)
// WHY: # expert:register-tiling: a 128 x 128 tile of C per block: A and B staged in shared memory, 8 x 8 outputs per thread
// WHY: global loads per multiply-add 2 -> 0.016
// WHY: # spec: grid.x -> ceil_div(ceil_div(N, BX), 8)
// WHY: # spec: grid.y -> ceil_div(ceil_div(M, BLOCK / BX), 8)
// WHY: # expert:register-tiling: 4 rows of C per thread (blockDim.y apart), each load of B shared by them
// WHY: # spec: grid.y -> ceil_div(ceil_div(M, BLOCK / BX), 4)
// NOTE: forge-port: note: applied expert:register-tiling: block-tiled 128 x 128
// NOTE: forge-port: note: register-tiling: spec: grid.x -> ceil_div((ceil_div(N, BX)) * (BX), 128)
// NOTE: forge-port: note: register-tiling: spec: grid.y -> ceil_div((ceil_div(M, BLOCK / BX)) * (BLOCK / BX), 128)
// NOTE: forge-port: note: register-tiling: spec: new constraint (BX) * (BLOCK / BX) * (1) == 256
// No spills, at most 128 registers (two blocks of 256 threads per SM).
// REGS: 0 bytes spill stores, 0 bytes spill loads
// REGS: Used {{([0-9]|[0-9][0-9]|1[01][0-9]|12[0-8])}} registers
// The first tile, then per k-tile: the next tile's global loads, 8 steps
// of 4 float4 shared-memory loads and 64 multiply-adds, one barrier.
// PTX: ld.global.v4.f32
// PTX: bar.sync
// PTX: ld.global.v4.f32
// PTX-COUNT-4: ld.shared.v4.f32
// PTX-COUNT-64: fma.rn.f32
// PTX-COUNT-4: ld.shared.v4.f32
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
// FIX:      __global__ void __launch_bounds__(256, 2) sgemm(const float *A, const float *B, float *C, int m, int n,
// FIX:        // register-tiling: a 128 x 128 tile of C per block of 256 threads, 8 x 8 outputs per thread;
// FIX-NEXT:   // 8-deep tiles of A (transposed) and B double-buffered in shared memory, read as float4.
// FIX-NEXT:   if (blockDim.x * blockDim.y * blockDim.z != 256)
// FIX-NEXT:     __trap(); // register-tiling: sized for blocks of 256 threads only
// FIX-NEXT:   __shared__ __align__(16) float rt_As[2][8][128];
// FIX-NEXT:   __shared__ __align__(16) float rt_Bs[2][8][128];
// FIX:        const bool rt_va = (k) % 4 == 0 && reinterpret_cast<unsigned long long>(&A[(size_t)0 * k + 0]) % 16 == 0 && (&A[(size_t)1 * k + 0] - &A[(size_t)0 * k + 0]) % 4 == 0;
// FIX-NEXT:   const bool rt_vb = (n) % 4 == 0 && reinterpret_cast<unsigned long long>(&B[(size_t)0 * n + 0]) % 16 == 0 && (&B[(size_t)1 * n + 0] - &B[(size_t)0 * n + 0]) % 4 == 0;
// FIX:            const float4 rt_w = *reinterpret_cast<const float4 *>(&A[(size_t)rt_rr * k + rt_cc]);
// FIX:            rt_ra[rt_e][rt_q] = rt_rr1 < m && rt_cc1 < k ? A[(size_t)rt_rr1 * k + rt_cc1] : 0.0f;
// FIX:            rt_rb[rt_e][rt_q] = rt_rr1 < k && rt_cc1 < n ? B[(size_t)rt_rr1 * n + rt_cc1] : 0.0f;
// FIX:          rt_As[0][((rt_v % 2) * 4 + rt_q)][(rt_v / 2)] = rt_ra[rt_e][rt_q];
// FIX:        for (int rt_k0 = 0; rt_k0 < k; rt_k0 += 8) {
// FIX-NEXT:     const int rt_s = int(rt_k0 / 8) & 1;
// FIX-NEXT:     const bool rt_more = rt_k0 + 8 < k;
// FIX:              const float4 rt_w = *reinterpret_cast<const float4 *>(&rt_As[rt_s][rt_kk][rt_g * 64 + rt_ty * 4 + rt_q * 4]);
// FIX:              rt_acc[rt_i][rt_j] += rt_a[rt_i] * rt_b[rt_j];
// FIX:              rt_As[rt_s ^ 1][((rt_v % 2) * 4 + rt_q)][(rt_v / 2)] = rt_ra[rt_e][rt_q];
// FIX:          const int rt_row = blockIdx.y * 128 + (rt_i / 4) * 64 + rt_ty * 4 + rt_i % 4;
// FIX-NEXT:     const int rt_col = blockIdx.x * 128 + (rt_j / 4) * 64 + rt_tx * 4 + rt_j % 4;
// FIX-NEXT:     if ((rt_row < m) && (rt_col < n))
// FIX-NEXT:       C[(size_t)rt_row * n + rt_col] = rt_acc[rt_i][rt_j];
// FIX-NEXT:   }
// FIX-NEXT: }
// The third proposal, two-level tiling, unchanged.
// PTX2: st.shared.f32
// PTX2: bar.sync
// PTX2: ld.shared
// PTX2-COUNT-64: fma.rn.f32
// PTX2: bar.sync
// TWO:        int col = blockIdx.x * 128 + threadIdx.x;
// TWO-NEXT:   int row = blockIdx.y * 128 + threadIdx.y;
// TWO-NEXT:   // register-tiling: a 128 x 128 tile of C per block, 8 x 8 outputs per thread
// TWO-NEXT:   // (rows 16 apart, columns 16 apart); A and B pass through shared memory 16 at a time.
// TWO-NEXT:   if (blockDim.x != 16 || blockDim.y != 16 || blockDim.z != 1)
// TWO-NEXT:     __trap(); // register-tiling: sized for this block shape only
// TWO-NEXT:   __shared__ float rt_As[128][16];
// TWO-NEXT:   __shared__ float rt_Bs[16][128];
// TWO-NEXT:   float rt_acc[8][8];
// TWO:        for (int rt_k0 = 0; rt_k0 < k; rt_k0 += 16) {
// TWO:            rt_As[rt_i][rt_kk] = rt_row < m && rt_p < k ? A[(size_t)rt_row * k + rt_p] : 0.0f;
// TWO:            rt_Bs[rt_kk][rt_j] = rt_p < k && rt_col < n ? B[(size_t)rt_p * n + rt_col] : 0.0f;
// TWO:              rt_acc[rt_i][rt_j] += rt_a[rt_i] * rt_b[rt_j];
// TWO:          int rt_row = row + rt_i * 16;
// TWO-NEXT:     int rt_col = col + rt_j * 16;
// TWO-NEXT:     if ((rt_row < m) && (rt_col < n))
// TWO-NEXT:       C[(size_t)rt_row * n + rt_col] = rt_acc[rt_i][rt_j];
// TWO-NEXT:   }
// TWO-NEXT: }
