// REQUIRES: cuda
// shared-padding: a 2D/3D __shared__ array read down a column by the lanes
// of a warp gets its rows padded; only the declaration changes. Each
// rewrite is applied, checked and compiled (all in one nvcc call).
// RUN: rm -rf %t.d && mkdir -p %t.d
// RUN: forge-port propose %s --kernel transposeCoalesced --block 32,8 --rules=shared-padding > %t.d/why.txt
// RUN: FileCheck %s --check-prefix=WHY --input-file=%t.d/why.txt
// RUN: forge-port propose %s --kernel transposeCoalesced --block 32,8 --rules=shared-padding --apply -o %t.d/a.cu
// RUN: forge-port propose %t.d/a.cu --kernel transpose_double --block 32,8 --rules=shared-padding --apply -o %t.d/b.cu
// RUN: forge-port propose %t.d/b.cu --kernel planes --block 32,4 --rules=shared-padding --apply -o %t.d/c.cu
// RUN: forge-port propose %t.d/c.cu --kernel square16 --block 16,16 --rules=shared-padding --apply -o %t.d/d.cu
// RUN: forge-port propose %t.d/d.cu --kernel flat_tid --block 256 --rules=shared-padding --apply -o %t.d/e.cu
// RUN: FileCheck %s --check-prefix=FIX --match-full-lines --input-file=%t.d/e.cu
// RUN: %nvcc -arch=sm_90 -c %t.d/e.cu -o %t.d/e.o
// WHY: # expert:shared-padding: pad the rows of 'tile': rows of 32 + 1 elements (32-way -> 1-way at 'tile[threadIdx.x][threadIdx.y + j]' (line {{[0-9]+}}))
// WHY: # Preconditions {{.*}} block 32 x 8 x 1 {{.*}}
// WHY: <<<<<<< SEARCH
// WHY-NEXT:   __shared__ float tile[TILE][TILE];
// WHY: =======
// WHY-NEXT:   __shared__ float tile[TILE][TILE + 1];
// WHY: >>>>>>> REPLACE

#define TILE 32
#define ROWS 8
// The blog's coalesced transpose before its bank-conflict fix.
__global__ void transposeCoalesced(float *odata, const float *idata, int width, int height) {
  __shared__ float tile[TILE][TILE];
  int x = blockIdx.x * TILE + threadIdx.x;
  int y = blockIdx.y * TILE + threadIdx.y;
  for (int j = 0; j < TILE; j += ROWS)
    if (x < width && y + j < height)
      tile[threadIdx.y + j][threadIdx.x] = idata[(y + j) * width + x];
  __syncthreads();
  x = blockIdx.y * TILE + threadIdx.x;
  y = blockIdx.x * TILE + threadIdx.y;
  for (int j = 0; j < TILE; j += ROWS)
    if (x < height && y + j < width)
      odata[(y + j) * height + x] = tile[threadIdx.x][threadIdx.y + j];
}
// FIX:   __shared__ float tile[TILE][TILE + 1];

// 8-byte elements are served in half-warps: one double of padding.
__global__ void transpose_double(double *out, const double *in, int n) {
  __shared__ double t[32][32];
  int tx = threadIdx.x, ty = threadIdx.y;
  int bx = blockIdx.x * 32, by = blockIdx.y * 32;
  for (int r = ty; r < 32; r += blockDim.y)
    if (bx + tx < n && by + r < n)
      t[r][tx] = in[(size_t)(by + r) * n + bx + tx];
  __syncthreads();
  for (int r = ty; r < 32; r += blockDim.y)
    if (by + tx < n && bx + r < n)
      out[(size_t)(bx + r) * n + by + tx] = t[tx][r];
}
// FIX:   __shared__ double t[32][32 + 1];

// A 3D array: planes of 32 x 64, each lane walking down a column.
__global__ void planes(const float *in, float *out, int n) {
  __shared__ float s[4][32][64];
  int p = threadIdx.y;
  for (int c = 0; c < 64; ++c)
    s[p][threadIdx.x][c] = in[((size_t)blockIdx.x * 4 + p) * 2048 + threadIdx.x * 64 + c];
  __syncthreads();
  float acc = 0.f;
  for (int c = 0; c < 64; ++c)
    acc += s[p][threadIdx.x][c];
  out[blockIdx.x * 128 + p * 32 + threadIdx.x] = acc;
}
// FIX:   __shared__ float s[4][32][64 + 1];

// A 16 x 16 block: a warp is two rows of the block. The column read is
// 8-way; with rows of 17 it is 1-way and the row write 2-way (its second
// half-warp wraps onto the first bank), which no padding avoids: the
// fewest elements that reach the best worst case are taken.
__global__ void square16(const float *in, float *out) {
  __shared__ float t[16][16];
  t[threadIdx.y][threadIdx.x] = in[blockIdx.x * 256 + threadIdx.y * 16 + threadIdx.x];
  __syncthreads();
  out[blockIdx.x * 256 + threadIdx.y * 16 + threadIdx.x] = t[threadIdx.x][threadIdx.y];
}
// FIX:   __shared__ float t[16][16 + 1];

// A flat thread index split into a row and a column: the write puts 8
// rows and 4 columns in one warp, 8-way in 4 banks; rows of 33 spread
// them over 11 banks (4-way), rows of 36 over all 32.
__global__ void flat_tid(const int *in, int *out) {
  __shared__ int t[8][32];
  int r = threadIdx.x % 8, c = threadIdx.x / 8;
  t[r][c] = in[blockIdx.x * 256 + threadIdx.x];
  __syncthreads();
  out[blockIdx.x * 256 + threadIdx.x] = t[threadIdx.x / 32][threadIdx.x % 32];
}
// FIX:   __shared__ int t[8][32 + 4];
