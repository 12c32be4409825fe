// `forge-port spec` infers sizes, buffer counts and the grid from the
// kernel's guards and indices (analysis::inferProblemShape); each RUN line
// checks one kernel against the spec written by hand for it.
// RUN: forge-port spec %s --kernel chunk -- %cuda_mock_flags | FileCheck %s --check-prefix=CHUNK
// RUN: forge-port spec %s --kernel strided -- %cuda_mock_flags | FileCheck %s --check-prefix=STRIDED
// RUN: forge-port spec %s --kernel dot -- %cuda_mock_flags | FileCheck %s --check-prefix=DOT
// RUN: forge-port spec %s --kernel partial -- %cuda_mock_flags | FileCheck %s --check-prefix=PARTIAL
// RUN: forge-port spec %s --kernel gridstride -- %cuda_mock_flags | FileCheck %s --check-prefix=GRIDSTRIDE
// RUN: forge-port spec %s --kernel blur -- %cuda_mock_flags | FileCheck %s --check-prefix=BLUR
// RUN: forge-port spec %s --kernel hist -- %cuda_mock_flags | FileCheck %s --check-prefix=HIST
// RUN: forge-port spec %s --kernel softmax -- %cuda_mock_flags | FileCheck %s --check-prefix=SOFTMAX
// RUN: forge-port spec %s --kernel gemm -- %cuda_mock_flags | FileCheck %s --check-prefix=GEMM
// RUN: forge-port spec %s --kernel flat2d -- %cuda_mock_flags | FileCheck %s --check-prefix=FLAT
// RUN: forge-port spec %s --kernel vec4 -- %cuda_mock_flags | FileCheck %s --check-prefix=VEC4
// RUN: forge-port spec %s --kernel pitched -- %cuda_mock_flags | FileCheck %s --check-prefix=PITCHED
// RUN: forge-port spec %s --kernel scan_block -- %cuda_mock_flags | FileCheck %s --check-prefix=SCAN
// RUN: forge-port spec %s --kernel unguarded -- %cuda_mock_flags | FileCheck %s --check-prefix=UNGUARDED
// RUN: forge-port spec %s --kernel transpose -- %cuda_mock_flags | FileCheck %s --check-prefix=TRANSPOSE
#include <cstddef>

// A per-thread chunk of ITEMS elements: the grid divides by the chunk.
template <int ITEMS>
__global__ void chunk(const float *x, float *y, int n) {
  int i = (blockIdx.x * blockDim.x + threadIdx.x) * ITEMS;
  for (int k = 0; k < ITEMS; ++k)
    if (i + k < n)
      y[i + k] = 2.0f * x[i + k];
}
template __global__ void chunk<4>(const float *, float *, int);
// CHUNK:      "sizes": {
// CHUNK-NEXT:   "n": 16777216
// CHUNK-NEXT: },
// CHUNK:        "name": "x",
// CHUNK:        "count": "n",
// CHUNK:        "name": "y",
// CHUNK:        "count": "n",
// CHUNK:      "grid": "ceil_div(n, ITEMS * BLOCK)",
// CHUNK:        "name": "ITEMS",
// CHUNK:        "default": 4

// A strided read: (n - 1) * stride + 1 elements.
__global__ void strided(const float *in, float *out, int n, int stride) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = in[i * stride];
}
// STRIDED:      "n": 4096,
// STRIDED-NEXT: "stride": 4096
// STRIDED:      "name": "in",
// STRIDED:      "count": "n * stride - stride + 1",
// STRIDED:      "name": "out",
// STRIDED:      "count": "n",
// STRIDED:      "value": "stride"
// STRIDED:      "grid": "ceil_div(n, BLOCK)",

// A reduction into one element.
__global__ void dot(const float *a, const float *b, float *sum, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicAdd(sum, a[i] * b[i]);
}
// DOT:        "name": "a",
// DOT-NEXT:   "dtype": "f32",
// DOT-NEXT:   "count": "n",
// DOT:        "name": "sum",
// DOT-NEXT:   "dtype": "f32",
// DOT-NEXT:   "count": "1",
// DOT-NEXT:   "role": "inout",

// One partial sum per block: as many as the grid has blocks.
__global__ void partial(const float *x, float *part, int n) {
  __shared__ float s[256];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  s[threadIdx.x] = i < n ? x[i] : 0.0f;
  __syncthreads();
  for (int w = blockDim.x / 2; w > 0; w >>= 1) {
    if (threadIdx.x < w)
      s[threadIdx.x] += s[threadIdx.x + w];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    part[blockIdx.x] = s[0];
}
// PARTIAL:      "name": "part",
// PARTIAL:      "count": "ceil_div(n, BLOCK)",
// PARTIAL-NEXT: "role": "out"
// PARTIAL:      "grid": "ceil_div(n, BLOCK)",

// A grid-stride loop: any grid; the draft launches one thread per element.
__global__ void gridstride(const double *x, double *y, size_t n, double a) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
       i += (size_t)blockDim.x * gridDim.x)
    y[i] = a * x[i] + y[i];
}
// GRIDSTRIDE:      "count": "n",
// GRIDSTRIDE:      "count": "n",
// GRIDSTRIDE:      "name": "n",
// GRIDSTRIDE-NEXT: "dtype": "u64",
// GRIDSTRIDE-NEXT: "value": "n"
// GRIDSTRIDE:      "grid": "ceil_div(n, BLOCK)",
// GRIDSTRIDE:      "grid.x: the grid-stride loop 'i < n' (line {{[0-9]+}}) is correct for any grid

// A clamped 3x3 blur: the clamps keep every read inside h * w.
__global__ void blur(const float *in, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h)
    return;
  float s = 0.0f;
  for (int dy = -1; dy <= 1; ++dy)
    for (int dx = -1; dx <= 1; ++dx) {
      int yy = min(max(y + dy, 0), h - 1);
      int xx = min(max(x + dx, 0), w - 1);
      s += in[yy * w + xx];
    }
  out[y * w + x] = s / 9.0f;
}
// BLUR:      "h": 4096,
// BLUR-NEXT: "w": 4096
// BLUR:      "count": "h * w",
// BLUR:      "count": "h * w",
// BLUR:      "grid": [
// BLUR-NEXT:   "ceil_div(w, BX)",
// BLUR-NEXT:   "ceil_div(h, BY)"
// BLUR:      "block": [
// BLUR-NEXT:   "BX",
// BLUR-NEXT:   "BY"

// A histogram: the bins index is data, so the count is left to the user.
__global__ void hist(const unsigned char *data, unsigned int *bins, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicAdd(&bins[data[i]], 1u);
}
// HIST:      "n": 16777216,
// HIST-NEXT: "N": 16777216
// HIST:      "name": "bins",
// HIST:      "count": "N",
// HIST:      "'bins' has N elements: 'atomicAdd(&bins[data[i]], 1u)' (line {{[0-9]+}}): 'data[i]' is loaded from memory{{.*}}; edit its count"

// A block per row: the grid is the rows themselves.
__global__ void softmax(const float *in, float *out, int rows, int cols) {
  int row = blockIdx.x;
  if (row >= rows)
    return;
  float m = -1e30f;
  for (int c = threadIdx.x; c < cols; c += blockDim.x)
    m = fmaxf(m, in[(size_t)row * cols + c]);
  for (int c = threadIdx.x; c < cols; c += blockDim.x)
    out[(size_t)row * cols + c] = expf(in[(size_t)row * cols + c] - m);
}
// SOFTMAX:      "cols": 4096,
// SOFTMAX-NEXT: "rows": 4096
// SOFTMAX:      "count": "cols * rows",
// SOFTMAX:      "count": "cols * rows",
// SOFTMAX:      "grid": "rows",
// SOFTMAX:      "grid.x covers rows blocks, from 'row < rows'

// A naive matrix product: A is M x K, B is K x N, C is M x N.
__global__ void gemm(const float *A, const float *B, float *C, int M, int N, int K) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M && col < N) {
    float acc = 0;
    for (int k = 0; k < K; ++k)
      acc += A[row * K + k] * B[k * N + col];
    C[row * N + col] = acc;
  }
}
// GEMM:      "K": 4096,
// GEMM-NEXT: "M": 4096,
// GEMM-NEXT: "N": 4096
// GEMM:      "name": "A",
// GEMM:      "count": "K * M",
// GEMM:      "name": "B",
// GEMM:      "count": "K * N",
// GEMM:      "name": "C",
// GEMM:      "count": "M * N",
// GEMM:      "grid": [
// GEMM-NEXT:   "ceil_div(N, BX)",
// GEMM-NEXT:   "ceil_div(M, BY)"

// A 2D image walked by a flat index.
__global__ void flat2d(const float *in, float *out, int w, int h) {
  size_t idx = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (idx < (size_t)w * h) {
    size_t x = idx % w, y = idx / w;
    out[y * w + x] = in[y * w + x] * 2.0f;
  }
}
// FLAT:      "count": "h * w",
// FLAT:      "count": "h * w",
// FLAT:      "grid": "ceil_div(h * w, BLOCK)",

// float4 views of float buffers: counts in floats.
__global__ void vec4(const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n / 4)
    reinterpret_cast<float4 *>(y)[i] = reinterpret_cast<const float4 *>(x)[i];
}
// VEC4:      "count": "(n / 4) * 4",
// VEC4:      "count": "(n / 4) * 4",
// VEC4:      "grid": "ceil_div(n / 4, BLOCK)",

// A pitched input: rows pitch apart, w wide.
__global__ void pitched(const float *in, float *out, int w, int h, int pitch) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h)
    out[y * w + x] = in[y * pitch + x];
}
// PITCHED:      "name": "in",
// PITCHED:      "count": "h * pitch - pitch + w",
// PITCHED:      "name": "out",
// PITCHED:      "count": "h * w",

// A block scan: the outputs per element and one total per block.
__global__ void scan_block(const int *in, int *out, int *sums, int n) {
  __shared__ int s[512];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  s[threadIdx.x] = i < n ? in[i] : 0;
  __syncthreads();
  for (int o = 1; o < blockDim.x; o *= 2) {
    int v = threadIdx.x >= o ? s[threadIdx.x - o] : 0;
    __syncthreads();
    s[threadIdx.x] += v;
    __syncthreads();
  }
  if (i < n)
    out[i] = s[threadIdx.x];
  if (threadIdx.x == blockDim.x - 1)
    sums[blockIdx.x] = s[threadIdx.x];
}
// SCAN:      "name": "in",
// SCAN:      "count": "n",
// SCAN:      "name": "out",
// SCAN:      "count": "n",
// SCAN:      "name": "sums",
// SCAN:      "count": "ceil_div(n, BLOCK)",

// No guard: the grid decides, and the buffers are as large as it is.
__global__ void unguarded(const float *in, float *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = in[i] + 1.0f;
}
// UNGUARDED:      "N": 16777216
// UNGUARDED:      "count": "BLOCK * ceil_div(N, BLOCK)",
// UNGUARDED:      "grid": "ceil_div(N, BLOCK)",
// UNGUARDED:      "grid.x: no guard or grid-stride loop bounds the threads along x

// The block of a host function's launch is the default of BX and BY.
__global__ void transpose(const float *in, float *out, int rows, int cols) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < cols && y < rows)
    out[x * rows + y] = in[y * cols + x];
}
void launch_transpose(const float *in, float *out, int rows, int cols) {
  dim3 block(16, 8);
  dim3 grid((cols + 15) / 16, (rows + 7) / 8);
  transpose<<<grid, block>>>(in, out, rows, cols);
}
// TRANSPOSE:      "count": "cols * rows",
// TRANSPOSE:      "count": "cols * rows",
// TRANSPOSE:      "grid": [
// TRANSPOSE-NEXT:   "ceil_div(cols, BX)",
// TRANSPOSE-NEXT:   "ceil_div(rows, BY)"
// TRANSPOSE:        "name": "BX",
// TRANSPOSE:        "default": 16
// TRANSPOSE:        "name": "BY",
// TRANSPOSE:        "default": 8
// TRANSPOSE:      "the block is the launch's at line {{[0-9]+}} (16 x 8 x 1), one tunable per dimension"

// RUN: forge-port spec %s --kernel typedefd -- %cuda_mock_flags | FileCheck %s --check-prefix=TYPEDEF
// An element type the spec has no dtype for (a typedef, as llm.c's floatX):
// the count stays in the kernel's elements, and a note asks for the dtype.
typedef short half_t;
__global__ void typedefd(half_t *out, const half_t *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = in[i];
}
// TYPEDEF:      "name": "out",
// TYPEDEF-NEXT: "dtype": "f32",
// TYPEDEF-NEXT: "count": "n",
// TYPEDEF:      "'out' points to 'half_t', which is no dtype a spec names: the draft says f32 and counts its elements; edit its dtype"

// RUN: forge-port spec %s --kernel rows_gather -- %cuda_mock_flags | FileCheck %s --check-prefix=NPARAM
// A parameter named N is a size like any other: a buffer left to the user
// (the gathered table) does not reset it to the --size default.
__global__ void rows_gather(const int *idx, const float *table, float *out, int N, int C) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < N)
    for (int c = 0; c < C; ++c)
      out[i * C + c] = table[idx[i] * C + c];
}
// NPARAM:      "sizes": {
// NPARAM-NEXT:   "C": 4096,
// NPARAM-NEXT:   "N": 4096
// NPARAM-NEXT: },
// NPARAM:      "name": "table",
// NPARAM:      "count": "N",
// NPARAM:      "name": "out",
// NPARAM:      "count": "C * N",
