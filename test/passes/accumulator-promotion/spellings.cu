// REQUIRES: cuda
// Loops that read and write one memory element in every iteration, written
// in several ways. The launches at the end pass buffers from distinct
// cudaMallocs, so no other buffer the loops read can be the accumulated
// one. Each rewrite keeps the element in a register and compiles with nvcc.
//
// The matrix product of the brief, loop order ijk, C pre-zeroed right
// before the loop: the register starts from that value.
// RUN: forge-port propose %s --kernel matmul --block 16,16 --rules=accumulator-promotion --apply -o %t.mm.cu 2>&1 | FileCheck %s --check-prefix=MM-NOTE
// RUN: FileCheck %s --check-prefix=MM --input-file=%t.mm.cu
// RUN: %nvcc -arch=sm_90 -c %t.mm.cu -o /dev/null
// MM-NOTE: applied expert:accumulator-promotion: 'C[row * N + col]' kept in a register 'acc' across the loop over 'k' at line {{[0-9]+}}: started from the value stored right before the loop, stored once after it
__global__ void matmul(const float *A, const float *B, float *C, int M, int N, int K) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M && col < N) {
    C[row * N + col] = 0;
    for (int k = 0; k < K; k++)
      C[row * N + col] += A[row * K + k] * B[k * N + col];
  }
}
// MM-LABEL: void matmul(
// MM:      if (row < M && col < N) {
// MM-NEXT:   float acc = 0;
// MM-NEXT:   for (int k = 0; k < K; k++)
// MM-NEXT:     acc += A[row * K + k] * B[k * N + col];
// MM-NEXT:   C[row * N + col] = acc;
// MM-NEXT: }

// Matrix-vector accumulating into y, which the host pre-zeroes (or holds a
// bias): the element is loaded before the loop.
// RUN: forge-port propose %s --kernel matvec --rules=accumulator-promotion --apply -o %t.mv.cu
// RUN: FileCheck %s --check-prefix=MV --input-file=%t.mv.cu
// RUN: %nvcc -arch=sm_90 -c %t.mv.cu -o /dev/null
__global__ void matvec(const float *A, const float *x, float *y, int m, int n) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < m) {
    for (int k = 0; k < n; ++k)
      y[row] += A[row * n + k] * x[k];
  }
}
// MV-LABEL: void matvec(
// MV:      if (row < m) {
// MV-NEXT:   float acc = y[row];
// MV-NEXT:   for (int k = 0; k < n; ++k)
// MV-NEXT:     acc += A[row * n + k] * x[k];
// MV-NEXT:   y[row] = acc;
// MV-NEXT: }

// A while loop over a 1D convolution, the counter declared right before it,
// an early return before the loop.
// RUN: forge-port propose %s --kernel conv1d --rules=accumulator-promotion --apply -o %t.w.cu
// RUN: FileCheck %s --check-prefix=WHILE --input-file=%t.w.cu
// RUN: %nvcc -arch=sm_90 -c %t.w.cu -o /dev/null
__global__ void conv1d(const float *in, const float *w, float *out, int n, int taps) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int t = 0;
  while (t < taps) {
    out[i] += w[t] * in[i + t];
    t++;
  }
}
// WHILE-LABEL: void conv1d(
// WHILE:      int t = 0;
// WHILE-NEXT: float acc = out[i];
// WHILE-NEXT: while (t < taps) {
// WHILE-NEXT:   acc += w[t] * in[i + t];
// WHILE-NEXT:   t++;
// WHILE-NEXT: }
// WHILE-NEXT: out[i] = acc;

// size_t indices, and `X[e] = X[e] op v` spelled out.
// RUN: forge-port propose %s --kernel rowsum_sz --rules=accumulator-promotion --apply -o %t.sz.cu
// RUN: FileCheck %s --check-prefix=SZ --input-file=%t.sz.cu
// RUN: %nvcc -arch=sm_90 -c %t.sz.cu -o /dev/null
__global__ void rowsum_sz(const float *a, float *sums, size_t rows, size_t cols) {
  size_t r = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows)
    for (size_t c = 0; c < cols; ++c) {
      sums[r] = sums[r] + a[r * cols + c];
    }
}
// The loop is the if's body: it gets braces with the load and the store.
// SZ-LABEL: void rowsum_sz(
// SZ:      if (r < rows) {
// SZ-NEXT:   float acc = sums[r];
// SZ-NEXT:   for (size_t c = 0; c < cols; ++c) {
// SZ-NEXT:     acc = acc + a[r * cols + c];
// SZ-NEXT:   }
// SZ-NEXT:   sums[r] = acc;
// SZ-NEXT: }

// double, the index through locals (a compound index with a batch
// offset), the accumulated element read again after the update.
// RUN: forge-port propose %s --kernel batched_dot --rules=accumulator-promotion --apply -o %t.d.cu
// RUN: FileCheck %s --check-prefix=DBL --input-file=%t.d.cu
// RUN: %nvcc -arch=sm_90 -c %t.d.cu -o /dev/null
__global__ void batched_dot(const double *a, const double *b, double *out, double *peak, int n,
                            int len) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  int batch = blockIdx.y;
  size_t base = (size_t)batch * n;
  size_t idx = base + j;
  if (j < n) {
    out[idx] = 0.5;
    for (int k = 0; k < len; ++k) {
      out[idx] = out[idx] + a[(size_t)k * n + j] * b[k];
      peak[idx] = out[idx] * 2.0;
    }
  }
}
// DBL-LABEL: void batched_dot(
// DBL:      double acc = 0.5;
// DBL-NEXT: for (int k = 0; k < len; ++k) {
// DBL-NEXT:   acc = acc + a[(size_t)k * n + j] * b[k];
// DBL-NEXT:   peak[idx] = acc * 2.0;
// DBL-NEXT: }
// DBL-NEXT: out[idx] = acc;

// The update under a condition that the loop does not change (a
// parameter), and a break: the load and the store are made under the same
// condition, and the break still reaches the store.
// RUN: forge-port propose %s --kernel masked --rules=accumulator-promotion --apply -o %t.m.cu
// RUN: FileCheck %s --check-prefix=MASK --input-file=%t.m.cu
// RUN: %nvcc -arch=sm_90 -c %t.m.cu -o /dev/null
__global__ void masked(const int *v, int *count, int n, int len, int enabled, int stop) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  for (int k = 0; k < len; ++k) {
    if (enabled)
      count[i] += v[(size_t)k * n + i] > 0;
    if (v[k] == stop)
      break;
  }
}
// MASK-LABEL: void masked(
// MASK:      int acc = 0;
// MASK-NEXT: if (enabled) acc = count[i];
// MASK-NEXT: for (int k = 0; k < len; ++k) {
// MASK-NEXT:   if (enabled)
// MASK-NEXT:     acc += v[(size_t)k * n + i] > 0;
// MASK-NEXT:   if (v[k] == stop)
// MASK-NEXT:     break;
// MASK-NEXT: }
// MASK-NEXT: if (enabled) count[i] = acc;

// A 2D convolution: two nested loops under #pragma unroll, the output
// promoted around the outer one (the pragma stays with its loop).
// RUN: forge-port propose %s --kernel conv2d --rules=accumulator-promotion --apply -o %t.c.cu
// RUN: FileCheck %s --check-prefix=CONV --input-file=%t.c.cu
// RUN: %nvcc -arch=sm_90 -c %t.c.cu -o /dev/null
__global__ void conv2d(const float *in, const float *w, float *out, int width, int height) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= width - 2 || y >= height - 2) return;
  out[y * width + x] = 0.f;
#pragma unroll
  for (int dy = 0; dy < 3; ++dy)
#pragma unroll
    for (int dx = 0; dx < 3; ++dx)
      out[y * width + x] += w[dy * 3 + dx] * in[(y + dy) * width + x + dx];
}
// CONV-LABEL: void conv2d(
// CONV:      float acc = 0.f;
// CONV-NEXT: #pragma unroll
// CONV-NEXT: for (int dy = 0; dy < 3; ++dy)
// CONV-NEXT: #pragma unroll
// CONV-NEXT:   for (int dx = 0; dx < 3; ++dx)
// CONV-NEXT:     acc += w[dy * 3 + dx] * in[(y + dy) * width + x + dx];
// CONV-NEXT: out[y * width + x] = acc;

// A per-block sum through a pointer dereference, in shared memory.
// RUN: forge-port propose %s --kernel block_partial --rules=accumulator-promotion --apply -o %t.s.cu
// RUN: FileCheck %s --check-prefix=SHARED --input-file=%t.s.cu
// RUN: %nvcc -arch=sm_90 -c %t.s.cu -o /dev/null
__global__ void block_partial(const float *x, float *sums, int chunk) {
  __shared__ float part[256];
  float *mine = &part[threadIdx.x];
  *mine = 0.f;
  for (int k = 0; k < chunk; ++k)
    *mine += x[(size_t)blockIdx.x * chunk * 256 + k * 256 + threadIdx.x];
  __syncthreads();
  if (threadIdx.x == 0) {
    float s = 0.f;
    for (int t = 0; t < 256; ++t)
      s += part[t];
    sums[blockIdx.x] = s;
  }
}
// SHARED-LABEL: void block_partial(
// SHARED:      float acc = 0.f;
// SHARED-NEXT: for (int k = 0; k < chunk; ++k)
// SHARED-NEXT:   acc += x[(size_t)blockIdx.x * chunk * 256 + k * 256 + threadIdx.x];
// SHARED-NEXT: *mine = acc;
// SHARED-NEXT: __syncthreads();

// A template with a do-while loop; the element indexed by threadIdx.x
// itself in shared memory; the loop in an else branch without braces.
// RUN: forge-port propose %s --kernel tsum --rules=accumulator-promotion --apply -o %t.t.cu
// RUN: FileCheck %s --check-prefix=TMPL --input-file=%t.t.cu
// RUN: %nvcc -arch=sm_90 -c %t.t.cu -o /dev/null
template <typename T>
__global__ void tsum(const T *a, T *out, int n) {
  __shared__ T s[256];
  s[threadIdx.x] = out[blockIdx.x * 256 + threadIdx.x];
  int k = 0;
  do {
    s[threadIdx.x] += a[(size_t)k * n + threadIdx.x];
    ++k;
  } while (k < n);
  __syncthreads();
  out[blockIdx.x * 256 + threadIdx.x] = s[255 - threadIdx.x];
}
// TMPL-LABEL: void tsum(
// TMPL:      T acc = out[blockIdx.x * 256 + threadIdx.x];
// TMPL-NEXT: int k = 0;
// TMPL-NEXT: do {
// TMPL-NEXT:   acc += a[(size_t)k * n + threadIdx.x];
// TMPL-NEXT:   ++k;
// TMPL-NEXT: } while (k < n);
// TMPL-NEXT: s[threadIdx.x] = acc;
// TMPL-NEXT: __syncthreads();

// RUN: forge-port propose %s --kernel branches --rules=accumulator-promotion --apply -o %t.e.cu
// RUN: FileCheck %s --check-prefix=ELSE --input-file=%t.e.cu
// RUN: %nvcc -arch=sm_90 -c %t.e.cu -o /dev/null
__global__ void branches(const float *a, float *out, int n, int sign) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  if (sign > 0) out[i] = 1.f;
  else
    for (int k = 0; k < n; ++k)
      out[i] -= a[k];
}
// ELSE-LABEL: void branches(
// ELSE:      if (sign > 0) out[i] = 1.f;
// ELSE-NEXT: else {
// ELSE-NEXT:   float acc = out[i];
// ELSE-NEXT:   for (int k = 0; k < n; ++k)
// ELSE-NEXT:     acc -= a[k];
// ELSE-NEXT:   out[i] = acc;
// ELSE-NEXT: }

void host(int m, int n, int k) {
  float *A, *B, *C, *x, *y, *w, *o, *s;
  double *da, *db, *dout, *dpeak;
  int *v, *cnt;
  cudaMalloc(&A, sizeof(float) * m * k);
  cudaMalloc(&B, sizeof(float) * k * n);
  cudaMalloc(&C, sizeof(float) * m * n);
  cudaMalloc(&x, sizeof(float) * n);
  cudaMalloc(&y, sizeof(float) * m);
  cudaMalloc(&w, sizeof(float) * 9);
  cudaMalloc(&o, sizeof(float) * m * n);
  cudaMalloc(&s, sizeof(float) * m);
  cudaMalloc(&da, sizeof(double) * n * k);
  cudaMalloc(&db, sizeof(double) * k);
  cudaMalloc(&dout, sizeof(double) * n * 4);
  cudaMalloc(&dpeak, sizeof(double) * n * 4);
  cudaMalloc(&v, sizeof(int) * n * k);
  cudaMalloc(&cnt, sizeof(int) * n);
  matmul<<<dim3(n / 16, m / 16), dim3(16, 16)>>>(A, B, C, m, n, k);
  matvec<<<m / 256, 256>>>(A, x, y, m, n);
  conv1d<<<n / 256, 256>>>(x, w, o, n, 9);
  rowsum_sz<<<m / 256, 256>>>(A, s, m, n);
  batched_dot<<<dim3(n / 256, 4), 256>>>(da, db, dout, dpeak, n, k);
  masked<<<n / 256, 256>>>(v, cnt, n, k, 1, -1);
  conv2d<<<dim3(n / 16, m / 16), dim3(16, 16)>>>(x, w, o, n, m);
  block_partial<<<m, 256>>>(A, s, 4);
  tsum<float><<<m / 256, 256>>>(A, o, n);
  branches<<<n / 256, 256>>>(x, o, n, -1);
}
