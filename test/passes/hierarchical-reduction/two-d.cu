// REQUIRES: cuda
// 2D launches: the guard 'x < w && y < h' (or its early-return form) bounds
// blockIdx.x and blockIdx.y; the virtual blocks are linearised (x fastest),
// and the capped grid is one-dimensional.
// RUN: forge-port propose %s --kernel sum2d --spec %S/Inputs/sum2d.json --rules=hierarchical-reduction \
// RUN:   --apply -o %t.cu 2>&1 | FileCheck %s --check-prefix=NOTE
// RUN: FileCheck %s --check-prefix=FIX --match-full-lines --input-file=%t.cu
// RUN: %nvcc -arch=sm_90 -c %t.cu -o %t.o
// RUN: forge-port propose %s --kernel sq2d --block 16,16 --rules=hierarchical-reduction \
// RUN:   --apply -o %t2.cu 2>&1 | FileCheck %s --check-prefix=SQ
// RUN: FileCheck %s --check-prefix=SQFIX --match-full-lines --input-file=%t2.cu
// RUN: %nvcc -arch=sm_90 -c %t2.cu -o %t2.o
// Only x is bounded (rows are a loop): x becomes virtual, y stays.
// RUN: forge-port propose %s --kernel colsum --block 256 --rules=hierarchical-reduction \
// RUN:   --apply -o %t3.cu 2>&1 | FileCheck %s --check-prefix=COL
// RUN: FileCheck %s --check-prefix=COLFIX --match-full-lines --input-file=%t3.cu
// RUN: %nvcc -arch=sm_90 -c %t3.cu -o %t3.o

__global__ void sum2d(const double *img, double *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h)
    atomicAdd(out, img[(size_t)y * w + x]);
}
// NOTE: forge-port: note: applied expert:hierarchical-reduction: one atomicAdd per block: partials in registers, combined by warp shuffles and shared memory, the guard's blocks strided over a capped grid
// NOTE: forge-port: note: hierarchical-reduction: spec: grid.x -> min((ceil_div(W, 32)) * (ceil_div(H, 8)), FORGE_WAVES * 132 * min(32, 2048 / ((32) * (8))))
// NOTE: forge-port: note: hierarchical-reduction: spec: grid.y -> 1
// NOTE: forge-port: note: hierarchical-reduction: spec: new tunable FORGE_WAVES in {2, 1, 4, 8, 16}
// NOTE: forge-port: note: hierarchical-reduction: spec: why: every thread runs the original body for the blocks of the original grid that the guard 'x < w' and 'y < h' admits, {{.*}}

// FIX:      __global__ void sum2d(const double *img, double *out, int w, int h) {
// FIX-NEXT:   // hierarchical-reduction: one atomicAdd per block. Every thread keeps a partial in a register;
// FIX-NEXT:   // the warps, then the block, combine the partials.
// FIX-NEXT:   double partial = 0.0;
// FIX-NEXT:   // The original body, for one block of the original grid.
// FIX-NEXT:   auto contribute = [&](unsigned bx, unsigned by) {
// FIX-NEXT:     int x = bx * blockDim.x + threadIdx.x;
// FIX-NEXT:     int y = by * blockDim.y + threadIdx.y;
// FIX-NEXT:     if (x < w && y < h)
// FIX-NEXT:       partial += img[(size_t)y * w + x];
// FIX-NEXT:   };
// FIX-NEXT:   {
// FIX-NEXT:     // The blocks along x that may pass 'x < w'.
// FIX-NEXT:     const long long limit_x = (long long)w;
// FIX-NEXT:     const long long blocks_x = limit_x > 0 ? (limit_x + (long long)blockDim.x - 1) / ((long long)blockDim.x) : 0;
// FIX-NEXT:     // The blocks along y that may pass 'y < h'.
// FIX-NEXT:     const long long limit_y = (long long)h;
// FIX-NEXT:     const long long blocks_y = limit_y > 0 ? (limit_y + (long long)blockDim.y - 1) / ((long long)blockDim.y) : 0;
// FIX-NEXT:     const long long blocks = blocks_x * blocks_y;
// FIX-NEXT:     const long long grid_blocks = (long long)gridDim.x * (long long)gridDim.y;
// FIX-NEXT:     long long vb = (long long)blockIdx.x + (long long)gridDim.x * blockIdx.y;
// FIX-NEXT:     for (; vb + 3 * grid_blocks < blocks; vb += 4 * grid_blocks) {
// FIX-NEXT:       contribute((unsigned)(vb % blocks_x), (unsigned)(vb / blocks_x));
// FIX-NEXT:       contribute((unsigned)((vb + grid_blocks) % blocks_x), (unsigned)((vb + grid_blocks) / blocks_x));
// FIX-NEXT:       contribute((unsigned)((vb + 2 * grid_blocks) % blocks_x), (unsigned)((vb + 2 * grid_blocks) / blocks_x));
// FIX-NEXT:       contribute((unsigned)((vb + 3 * grid_blocks) % blocks_x), (unsigned)((vb + 3 * grid_blocks) / blocks_x));
// FIX-NEXT:     }
// FIX-NEXT:     for (; vb < blocks; vb += grid_blocks)
// FIX-NEXT:       contribute((unsigned)(vb % blocks_x), (unsigned)(vb / blocks_x));
// FIX-NEXT:   }
// FIX-NEXT:   // The block's partials: lanes by shuffles, warps through shared memory.
// FIX-NEXT:   {
// FIX-NEXT:     const unsigned threads = blockDim.x * blockDim.y * blockDim.z;
// FIX:            const unsigned t = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);

__global__ void sq2d(const float *a, float *res, int width, int height) {
  int col = threadIdx.x + blockIdx.x * blockDim.x;
  int row = threadIdx.y + blockIdx.y * blockDim.y;
  if (col >= width || row >= height) return;
  float v = a[row * width + col];
  atomicAdd(res, v * v);
}
// SQ: forge-port: note: applied expert:hierarchical-reduction: {{.*}} the guard's blocks strided over a capped grid
// SQFIX:        auto contribute = [&](unsigned bx, unsigned by) {
// SQFIX-NEXT:     int col = threadIdx.x + bx * blockDim.x;
// SQFIX-NEXT:     int row = threadIdx.y + by * blockDim.y;
// SQFIX-NEXT:     if (col >= width || row >= height) return;
// SQFIX-NEXT:     float v = a[row * width + col];
// SQFIX-NEXT:     partial += v * v;
// SQFIX-NEXT:   };
// SQFIX:          // The blocks along x that may pass 'col < width'.
// SQFIX:          // The blocks along y that may pass 'row < height'.

__global__ void colsum(const float *m, float *out, int rows, int cols) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c < cols) {
    float s = 0.f;
    for (int r = 0; r < rows; ++r)
      s += m[(size_t)r * cols + c];
    atomicAdd(out, s);
  }
}
// COL: forge-port: note: applied expert:hierarchical-reduction: {{.*}} the guard's blocks strided over a capped grid
// COLFIX:        auto contribute = [&](unsigned bx) {
// COLFIX-NEXT:     int c = bx * blockDim.x + threadIdx.x;
// COLFIX-NEXT:     if (c < cols) {
// COLFIX-NEXT:       float s = 0.f;
// COLFIX-NEXT:       for (int r = 0; r < rows; ++r)
// COLFIX-NEXT:         s += m[(size_t)r * cols + c];
// COLFIX-NEXT:       partial += s;
// COLFIX-NEXT:     }
// COLFIX-NEXT:   };
