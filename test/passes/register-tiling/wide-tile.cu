// REQUIRES: cuda
// A float product whose 128 x 256 tiles fill two waves of the GPU (4096^3
// on 132 SMs) also gets the wide block tile: 8 x 16 outputs a thread, one
// block an SM; at 2048^3 the rule says why it does not.
// RUN: forge-port propose %s --spec %S/Inputs/sgemm_4096.json --rules=register-tiling > %t.props
// RUN: FileCheck %s --check-prefix=BIG --input-file=%t.props
// RUN: forge-port propose %s --spec %S/Inputs/sgemm.json --rules=register-tiling > %t.small
// RUN: FileCheck %s --check-prefix=SMALL --input-file=%t.small
// RUN: forge-port propose %s --spec %S/Inputs/sgemm_4096.json --rules=register-tiling --format=json > %t.json
// RUN: %python %S/../../Inputs/apply_proposal.py %t.json 2 %s > %t.cu
// RUN: FileCheck %s --check-prefix=FIX --input-file=%t.cu
// RUN: %nvcc -arch=sm_90 -O3 -Xptxas -v -cubin %t.cu -o %t.cubin 2>&1 | FileCheck %s --check-prefix=REGS
__global__ void sgemm(const float *A, const float *B, float *C, int m, int n, int k) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row < m && col < n) {
    float acc = 0.0f;
    for (int p = 0; p < k; ++p)
      acc += A[row * k + p] * B[p * n + col];
    C[row * n + col] = acc;
  }
}
// BIG: # expert:register-tiling: block-tiled 128 x 128: 256 threads, 8 x 8 outputs each
// BIG: # expert:register-tiling: block-tiled 64 x 64: 256 threads, 4 x 4 outputs each
// BIG: # expert:register-tiling: block-tiled 128 x 256: 256 threads, 8 x 16 outputs each, double-buffered shared tiles, float4 loads
// BIG: # spec: grid.x -> ceil_div((ceil_div(N, 16)) * (16), 256)
// BIG-NEXT: # spec: grid.y -> ceil_div((ceil_div(M, 16)) * (16), 128)
// SMALL-NOT: block-tiled 128 x 256: 256 threads
// SMALL: No block-tiled 128 x 256: the spec's launch (4194304 threads) covers fewer than two waves of 128 x 256 tiles on 132 SMs
// FIX: __global__ void __launch_bounds__(256, 1) sgemm(
// FIX: // register-tiling: a 128 x 256 tile of C per block of 256 threads, 8 x 16 outputs per thread;
// FIX: float {{[a-z_]+}}[8][16];
// REGS: 0 bytes spill stores, 0 bytes spill loads
