// REQUIRES: cuda
// The suite tunes before it optimizes, and the tuned SGEMM launches 32 x 4 =
// 128 threads. Block tiling needs 256 threads in a 2D shape that divides the
// tile: the rule finds the spec's tunable values closest to the current ones
// that give one (here BLOCK 128 -> 256, BX stays 32: a 32 x 8 block), writes
// them into the source where it spells them (the constant in the launch
// function), sets the grid to one block per tile for any block shape, and
// pins the block at 256 threads with a new constraint so that a later tuner
// sweep tries only launches the rewrite accepts.
// RUN: forge-port propose %s --spec %S/Inputs/sgemm-128.json --rules=register-tiling > %t.props
// RUN: FileCheck %s --check-prefix=WHY --input-file=%t.props
// RUN: forge-port propose %s --spec %S/Inputs/sgemm-128.json --rules=register-tiling \
// RUN:   --apply -o %t.cu 2>&1 | FileCheck %s --check-prefix=NOTE
// RUN: FileCheck %s --check-prefix=FIX --match-full-lines --input-file=%t.cu
// RUN: %nvcc -arch=sm_90 -O3 -c %t.cu -o %t.o
// No value of BLOCK reaches 256 threads: no block tiling, and the reason.
// RUN: forge-port propose %s --spec %S/Inputs/sgemm-128-only.json --rules=register-tiling \
// RUN:   | FileCheck %s --check-prefix=NOVALUE
// A launch whose block the write-back cannot change (dim3(32, 4) literals):
// the block-tiled variants are not proposed, and the reason names the line.
// RUN: forge-port propose %S/Inputs/sgemm-literal-block.cu --spec %S/Inputs/sgemm-128.json \
// RUN:   --rules=register-tiling | FileCheck %s --check-prefix=NOSITE
// A kernel without a launch in its file: the spec is the launch; the values
// change there only, and the justification says so.
// RUN: forge-port propose %S/Inputs/sgemm-kernel-only.cu --spec %S/Inputs/sgemm-128.json \
// RUN:   --rules=register-tiling | FileCheck %s --check-prefix=SPECONLY
// WHY: # expert:register-tiling: block-tiled 128 x 128: 256 threads, 8 x 8 outputs each
// WHY: # spec: grid.x -> ceil_div((ceil_div(N, BX)) * (BX), 128)
// WHY: # spec: grid.y -> ceil_div((ceil_div(M, BLOCK / BX)) * (BLOCK / BX), 128)
// WHY: # spec: BLOCK = 256
// WHY: # spec: new constraint (BX) * (BLOCK / BX) * (1) == 256
// WHY: # spec: why: {{.*}}(BLOCK = 256, written into the source)
// WHY: const int BLOCK = 256;
// WHY: # expert:register-tiling: block-tiled 64 x 64
// WHY: # spec: BLOCK = 256
// NOTE: forge-port: note: applied expert:register-tiling: block-tiled 128 x 128
// NOTE: forge-port: note: register-tiling: spec: BLOCK = 256
// FIX: __global__ void __launch_bounds__(256, 2) sgemm(const float *A, const float *B, float *C, int m, int n,
// FIX:   if (blockDim.x * blockDim.y * blockDim.z != 256)
// FIX:   const int BLOCK = 256;
// FIX:   const int BX = 32;
// FIX:   sgemm<<<grid, block>>>(A, B, C, m, n, k);
// NOVALUE-NOT: block-tiled 128 x 128: 256 threads
// NOVALUE: (No block-tiled 128 x 128: needs 256 threads in a 2D block that divides the 128 x 128 tile: the block is 32 x 4 x 1 and no values of the spec's tunables give one that fits;
// NOSITE-NOT: block-tiled 128 x 128: 256 threads
// NOSITE: (No block-tiled 128 x 128: needs 256 threads in a 2D block that divides the 128 x 128 tile: the launch must change and its values cannot be written into the source: BLOCK: {{.*}}sgemm-literal-block.cu:17: the block size `block` cannot be written: `block` is not a macro, constant, enumerator or local variable initialised with an integer literal
// SPECONLY: # expert:register-tiling: block-tiled 128 x 128: 256 threads
// SPECONLY: # spec: BLOCK = 256
// SPECONLY: # spec: why: {{.*}}(BLOCK = 256; no launch of the kernel is in this file: launch it so)
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

void launch_sgemm(const float *A, const float *B, float *C, int m, int n,
                  int k) {
  const int BLOCK = 128;
  const int BX = 32;
  dim3 block(BX, BLOCK / BX);
  dim3 grid((n + BX - 1) / BX, (m + BLOCK / BX - 1) / (BLOCK / BX));
  sgemm<<<grid, block>>>(A, B, C, m, n, k);
}
