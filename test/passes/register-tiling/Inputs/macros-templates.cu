// Kernels of macros-templates.test: products through macros and templates.
// An element macro for A and C, an index macro for B.
#define AT(p, r, c, ld) p[(r) * (ld) + (c)]
#define IX(r, c, ld) ((r) * (ld) + (c))
__global__ void mm_pass(const float *A, const float *B, float *C, int m, int n, int k) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row < m && col < n) {
    float acc = 0.0f;
    for (int p = 0; p < k; ++p)
      acc += AT(A, row, p, k) * B[IX(p, col, n)];
    AT(C, row, col, n) = acc;
  }
}

// The row is an argument the macro expands twice (a clamp): editing its
// text would change both expansions, so nothing is re-spelt inside it.
#define CLAMPED(p, r, c, ld) p[((r) < (ld) ? (r) : (ld) - 1) * (ld) + (c)]
__global__ void mm_twice(const float *A, const float *B, float *C, int n) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row < n && col < n) {
    float acc = 0.0f;
    for (int p = 0; p < n; ++p)
      acc += CLAMPED(A, row, p, n) * B[p * n + col];
    C[row * n + col] = acc;
  }
}

// The macro's body names the row itself: it cannot be renamed there.
#define A_ROW(p) A[row * n + (p)]
__global__ void mm_body(const float *A, const float *B, float *C, int n) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row < n && col < n) {
    float acc = 0.0f;
    for (int p = 0; p < n; ++p)
      acc += A_ROW(p) * B[p * n + col];
    C[row * n + col] = acc;
  }
}

template <typename V>
__global__ void mm_tpl(const V *a, const V *b, V *c, int m, int n, int k) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i < m && j < n) {
    V s = 0;
    for (int p = 0; p < k; ++p)
      s += a[i * k + p] * b[p * n + j];
    c[i * n + j] = s;
  }
}
void run_tpl(const double *a, const double *b, double *c, int m, int n, int k) {
  mm_tpl<<<dim3((n + 15) / 16, (m + 15) / 16), dim3(16, 16)>>>(a, b, c, m, n, k);
}

template <typename T>
__global__ void mm_mixed(const T *a, const T *b, T *c, int n) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i < n && j < n) {
    T s = 0;
    for (int p = 0; p < n; ++p)
      s += a[i * n + p] * b[p * n + j];
    c[i * n + j] = s;
  }
}
void run_mixed(const float *a, const float *b, float *c, const double *x, const double *y,
               double *z, int n) {
  mm_mixed<float><<<dim3((n + 15) / 16, (n + 15) / 16), dim3(16, 16)>>>(a, b, c, n);
  mm_mixed<double><<<dim3((n + 15) / 16, (n + 15) / 16), dim3(16, 16)>>>(x, y, z, n);
}

template <typename T>
__global__ void mm_int(const T *a, const T *b, T *c, int n) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i < n && j < n) {
    T s = 0;
    for (int p = 0; p < n; ++p)
      s += a[i * n + p] * b[p * n + j];
    c[i * n + j] = s;
  }
}
void run_int(const int *a, const int *b, int *c, int n) {
  mm_int<int><<<dim3((n + 15) / 16, (n + 15) / 16), dim3(16, 16)>>>(a, b, c, n);
}

template <typename T>
__global__ void mm_unused(const T *a, const T *b, T *c, int n) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i < n && j < n) {
    T s = 0;
    for (int p = 0; p < n; ++p)
      s += a[i * n + p] * b[p * n + j];
    c[i * n + j] = s;
  }
}
