// REQUIRES: cuda
// The same transpose written in other ways: unsigned positions written
// threadIdx + blockDim * blockIdx, `size_t` indices and an early return;
// swapped roles (strided reads, coalesced writes) on doubles; nested
// guards and a scaled, converted value held in a local; index locals,
// separate early returns and __ldg; positions written inline; a batch
// along blockIdx.z. Each is rewritten from the model, and each result
// compiles.
// RUN: forge-port propose %s --kernel t_sizet --block 32,8 --rules=transpose-tile --apply -o %t.1.cu
// RUN: FileCheck %s --check-prefix=SIZET --match-full-lines --input-file=%t.1.cu
// RUN: %nvcc -arch=sm_90 -c %t.1.cu -o %t.1.o
// RUN: forge-port propose %s --kernel t_swapped --block 16,16 --rules=transpose-tile --apply -o %t.2.cu
// RUN: FileCheck %s --check-prefix=SWAP --match-full-lines --input-file=%t.2.cu
// RUN: %nvcc -arch=sm_90 -c %t.2.cu -o %t.2.o
// RUN: forge-port propose %s --kernel t_scale --block 32,8 --rules=transpose-tile --apply -o %t.3.cu
// RUN: FileCheck %s --check-prefix=SCALE --match-full-lines --input-file=%t.3.cu
// RUN: %nvcc -arch=sm_90 -c %t.3.cu -o %t.3.o
// RUN: forge-port propose %s --kernel t_ldg --rules=transpose-tile --apply -o %t.4.cu
// RUN: FileCheck %s --check-prefix=LDG --match-full-lines --input-file=%t.4.cu
// RUN: %nvcc -arch=sm_90 -c %t.4.cu -o %t.4.o
// RUN: forge-port propose %s --kernel t_inline --block 32,32 --rules=transpose-tile --apply -o %t.5.cu
// RUN: FileCheck %s --check-prefix=INLINE --match-full-lines --input-file=%t.5.cu
// RUN: %nvcc -arch=sm_90 -c %t.5.cu -o %t.5.o
// RUN: forge-port propose %s --kernel t_batched --block 32,8 --rules=transpose-tile --apply -o %t.6.cu
// RUN: FileCheck %s --check-prefix=BATCH --match-full-lines --input-file=%t.6.cu
// RUN: %nvcc -arch=sm_90 -c %t.6.cu -o %t.6.o

__global__ void t_sizet(const float *__restrict__ src, float *__restrict__ dst, int width, int height) {
  unsigned col = threadIdx.x + blockDim.x * blockIdx.x;
  unsigned row = threadIdx.y + blockDim.y * blockIdx.y;
  if (col >= width || row >= height) return;
  dst[(size_t)col * height + row] = src[(size_t)row * width + col];
}
// SIZET:      __global__ void t_sizet(const float *__restrict__ src, float *__restrict__ dst, int width, int height) {
// SIZET:        __shared__ float forge_tile[32][32 + 1];
// SIZET:        for (long long forge_y0 = 32 * (long long)blockIdx.y; forge_y0 < height; forge_y0 += 32 * (long long)gridDim.y) {
// SIZET-NEXT:     for (long long forge_x0 = 32 * (long long)blockIdx.x; forge_x0 < width; forge_x0 += 32 * (long long)gridDim.x) {
// SIZET:              const long long col = forge_x0 + forge_e % 32, row = forge_y0 + forge_e / 32;
// SIZET-NEXT:         if (col < width && row < height)
// SIZET-NEXT:           forge_tile[forge_e / 32][forge_e % 32] = src[row * width + col];
// SIZET:              const long long col = forge_x0 + forge_e / 32, row = forge_y0 + forge_e % 32;
// SIZET-NEXT:         if (col < width && row < height)
// SIZET-NEXT:           dst[col * height + row] = forge_tile[forge_e % 32][forge_e / 32];

__global__ void t_swapped(const double *a, double *b, int n, int m) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int j = blockIdx.y * blockDim.y + threadIdx.y;
  if (i < n && j < m)
    b[j * n + i] = a[i * m + j];
}
// The load runs along j (contiguous in 'a'), the store along i.
// SWAP:      __global__ void t_swapped(const double *a, double *b, int n, int m) {
// SWAP:        __shared__ double forge_tile[32][32 + 1];
// SWAP:              const long long forge_px = forge_x0 + threadIdx.y, forge_py = forge_y0 + threadIdx.x;
// SWAP-NEXT:         const long long forge_at = forge_px * m + forge_py, forge_step = m;
// SWAP:              const long long i = forge_x0 + forge_e / 32, j = forge_y0 + forge_e % 32;
// SWAP-NEXT:         if (i < n && j < m)
// SWAP-NEXT:           forge_tile[forge_e / 32][forge_e % 32] = a[i * m + j];
// SWAP:              const long long forge_px = forge_x0 + threadIdx.x, forge_py = forge_y0 + threadIdx.y;
// SWAP-NEXT:         const long long forge_at = forge_py * n + forge_px, forge_step = n;
// SWAP:                  b[forge_at + 8 * forge_r * forge_step] = forge_tile[threadIdx.x][threadIdx.y + 8 * forge_r];
// SWAP:              const long long i = forge_x0 + forge_e % 32, j = forge_y0 + forge_e / 32;
// SWAP-NEXT:         if (i < n && j < m)
// SWAP-NEXT:           b[j * n + i] = forge_tile[forge_e % 32][forge_e / 32];

__global__ void t_scale(const float *in, double *out, float s, int rows, int cols) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (y < rows) {
    if (x < cols) {
      float v = in[y * cols + x];
      out[x * rows + y] = (double)(v * s);
    }
  }
}
// The tile holds the loaded floats; the store converts as the kernel did.
// SCALE:      __global__ void t_scale(const float *in, double *out, float s, int rows, int cols) {
// SCALE:        __shared__ float forge_tile[32][32 + 1];
// SCALE:        const bool forge_fast = blockDim.x == 32 && blockDim.y == 8 && blockDim.z == 1;
// SCALE:              const bool forge_full = forge_y0 + 31 < rows && forge_x0 + 31 < cols;
// SCALE:                  forge_tile[threadIdx.y + 8 * forge_r][threadIdx.x] = in[forge_at + 8 * forge_r * forge_step];
// SCALE:                if (y < rows && x < cols)
// SCALE-NEXT:             forge_tile[threadIdx.y + 8 * forge_r][threadIdx.x] = in[forge_at + 8 * forge_r * forge_step];
// SCALE:              for (unsigned forge_e = forge_t; forge_e < 32 * 32; forge_e += forge_threads) {
// SCALE:                if (y < rows && x < cols)
// SCALE-NEXT:           forge_tile[forge_e / 32][forge_e % 32] = in[y * cols + x];
// SCALE:                  out[forge_at + 8 * forge_r * forge_step] = (double)(forge_tile[threadIdx.x][threadIdx.y + 8 * forge_r] * s);
// SCALE:              for (unsigned forge_e = forge_t; forge_e < 32 * 32; forge_e += forge_threads) {
// SCALE:                if (y < rows && x < cols)
// SCALE-NEXT:           out[x * rows + y] = (double)(forge_tile[forge_e % 32][forge_e / 32] * s);

__global__ void t_ldg(const float *in, float *out, int rows, int cols) {
  const int c = blockIdx.x * blockDim.x + threadIdx.x;
  const int r = blockIdx.y * blockDim.y + threadIdx.y;
  if (c >= cols) return;
  if (r >= rows) return;
  int src = r * cols + c;
  int dst = c * rows + r;
  out[dst] = __ldg(&in[src]);
}
// LDG:      __global__ void t_ldg(const float *in, float *out, int rows, int cols) {
// LDG:              const long long c = forge_x0 + forge_e % 32, r = forge_y0 + forge_e / 32;
// LDG-NEXT:         if (c < cols && r < rows)
// LDG-NEXT:           forge_tile[forge_e / 32][forge_e % 32] = __ldg(&in[r * cols + c]);
// LDG:                out[c * rows + r] = forge_tile[forge_e % 32][forge_e / 32];

__global__ void t_inline(const int *A, int *B, int M, int N) {
  if (blockIdx.x * blockDim.x + threadIdx.x < N && blockIdx.y * blockDim.y + threadIdx.y < M)
    B[(blockIdx.x * blockDim.x + threadIdx.x) * M + blockIdx.y * blockDim.y + threadIdx.y] =
        A[(blockIdx.y * blockDim.y + threadIdx.y) * N + blockIdx.x * blockDim.x + threadIdx.x];
}
// INLINE:      __global__ void t_inline(const int *A, int *B, int M, int N) {
// INLINE:        __shared__ int forge_tile[32][32 + 1];
// INLINE:              const long long x = forge_x0 + forge_e % 32, y = forge_y0 + forge_e / 32;
// INLINE-NEXT:         if (x < N && y < M)
// INLINE-NEXT:           forge_tile[forge_e / 32][forge_e % 32] = A[y * N + x];
// INLINE:                B[x * M + y] = forge_tile[forge_e % 32][forge_e / 32];

__global__ void t_batched(const float *in, float *out, int rows, int cols) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  int z = blockIdx.z;
  if (x < cols && y < rows)
    out[z * rows * cols + x * rows + y] = in[z * rows * cols + y * cols + x];
}
// The batch offset stays a term of both indices.
// BATCH:      __global__ void t_batched(const float *in, float *out, int rows, int cols) {
// BATCH:              const long long forge_at = forge_py * cols + forge_px + (long long)blockIdx.z * rows * cols, forge_step = cols;
// BATCH:                forge_tile[forge_e / 32][forge_e % 32] = in[y * cols + x + (long long)blockIdx.z * rows * cols];
// BATCH:                out[x * rows + y + (long long)blockIdx.z * rows * cols] = forge_tile[forge_e % 32][forge_e / 32];
