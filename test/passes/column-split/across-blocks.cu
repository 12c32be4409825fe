// REQUIRES: cuda
// When the split within blocks still leaves the GPU short of threads, blocks
// along y share each column too, through grid.y: only where the grid is 1D
// and the kernel does not read blockIdx.y or gridDim.y itself. Otherwise the
// split stays within blocks, and the rationale says why.
// RUN: forge-port propose %s --spec %S/Inputs/batched.json --rules=column-split 2>/dev/null | FileCheck %s --check-prefix=BATCHED
// RUN: forge-port propose %s --spec %S/Inputs/by_y.json --rules=column-split 2>/dev/null | FileCheck %s --check-prefix=BYY
// RUN: forge-port propose %s --spec %S/Inputs/by_y.json --rules=column-split --apply -o %t.cu 2>/dev/null
// RUN: %nvcc -arch=sm_80 -c %t.cu -o %t.o

// A batch along blockIdx.y: the grid is the spec's 2D one.
__global__ void batched_colsum(const float *a, float *out, int rows, int cols) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  const float *m = a + (size_t)blockIdx.y * rows * cols;
  if (j < cols) {
    float s = 0.f;
    for (int r = 0; r < rows; ++r) s += m[(size_t)r * cols + j];
    out[(size_t)blockIdx.y * cols + j] = s;
  }
}
// BATCHED: # expert:column-split: the column loop over 'r' split over 8 slices of each block
// BATCHED: The split stays within blocks (the spec's grid is not 1D).
// BATCHED-NOT: FORGE_COLUMN_BLOCKS

// A 1D grid, but the kernel reads gridDim.y (a debugging guard).
__global__ void colsum_y(const float *a, float *out, int rows, int cols) {
  if (gridDim.y != 1) return;
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j < cols) {
    float s = 0.f;
    for (int r = 0; r < rows; ++r) s += a[(size_t)r * cols + j];
    out[j] = s;
  }
}
// BYY: # expert:column-split: the column loop over 'r' split over 8 slices of each block
// BYY: The split stays within blocks (the kernel reads the y or z of blockIdx or gridDim).
// BYY-NOT: FORGE_COLUMN_BLOCKS
