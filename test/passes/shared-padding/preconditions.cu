// Each kernel here is declined by shared-padding, with its reason.
// RUN: not forge-port propose %s --kernel mm_tile --block 16,16 --rules=shared-padding 2>&1 | FileCheck %s --check-prefix=FREE
// RUN: not forge-port propose %s --kernel one_dim --block 256 --rules=shared-padding 2>&1 | FileCheck %s --check-prefix=ONE
// RUN: not forge-port propose %s --kernel row_ptr --block 32,8 --rules=shared-padding 2>&1 | FileCheck %s --check-prefix=ROW
// RUN: not forge-port propose %s --kernel addr_arith --block 32,8 --rules=shared-padding 2>&1 | FileCheck %s --check-prefix=ADDR
// RUN: not forge-port propose %s --kernel transpose32 --rules=shared-padding 2>&1 | FileCheck %s --check-prefix=NOBLOCK
// RUN: not forge-port propose %s --kernel param_stride --block 32,8 --rules=shared-padding 2>&1 | FileCheck %s --check-prefix=PARAM
// RUN: not forge-port propose %s --kernel too_big --block 32,8 --rules=shared-padding 2>&1 | FileCheck %s --check-prefix=BIG
// RUN: not forge-port propose %s --kernel dyn --block 256 --rules=shared-padding 2>&1 | FileCheck %s --check-prefix=DYN

// FREE: shared-padding: not applicable: the accesses of 'As' are free of bank conflicts for the block 16 x 16 x 1; the accesses of 'Bs' are free of bank conflicts for the block 16 x 16 x 1
__global__ void mm_tile(const float *A, const float *B, float *C, int n) {
  __shared__ float As[16][16], Bs[16][16];
  int tx = threadIdx.x, ty = threadIdx.y;
  int row = blockIdx.y * 16 + ty, col = blockIdx.x * 16 + tx;
  float acc = 0.f;
  for (int k0 = 0; k0 < n; k0 += 16) {
    As[ty][tx] = A[row * n + k0 + tx];
    Bs[ty][tx] = B[(k0 + ty) * n + col];
    __syncthreads();
    for (int k = 0; k < 16; ++k)
      acc += As[ty][k] * Bs[k][tx];
    __syncthreads();
  }
  C[row * n + col] = acc;
}

// ONE: shared-padding: not applicable: no __shared__ array of two or more dimensions with constant extents in the kernel body
__global__ void one_dim(const float *in, float *out) {
  __shared__ float s[256];
  s[threadIdx.x] = in[threadIdx.x];
  __syncthreads();
  out[threadIdx.x] = s[(threadIdx.x * 32) % 256];
}

// ROW: shared-padding: not applicable: 't' is used at line {{[0-9]+}} other than as one element ('t[i][j]'): a padded row would change what that use sees
__device__ float sum32(const float *row) {
  float s = 0.f;
  for (int i = 0; i < 32; ++i) s += row[i];
  return s;
}
__global__ void row_ptr(const float *in, float *out) {
  __shared__ float t[32][32];
  for (int j = threadIdx.y; j < 32; j += 8)
    t[j][threadIdx.x] = in[j * 32 + threadIdx.x];
  __syncthreads();
  out[threadIdx.x] = sum32(t[threadIdx.x]) + t[threadIdx.x][0];
}

// ADDR: shared-padding: not applicable: the address of an element of 't' is kept at line {{[0-9]+}}: arithmetic on it would cross the padding
__global__ void addr_arith(const float *in, float *out) {
  __shared__ float t[32][32];
  t[threadIdx.y][threadIdx.x] = in[threadIdx.x];
  __syncthreads();
  const float *p = &t[threadIdx.x][0];
  out[threadIdx.x] = p[33] + t[threadIdx.x][1];
}

// NOBLOCK: shared-padding: not applicable: the block shape is not known
__global__ void transpose32(const float *in, float *out) {
  __shared__ float t[32][32];
  t[threadIdx.y][threadIdx.x] = in[threadIdx.y * 32 + threadIdx.x];
  __syncthreads();
  out[threadIdx.y * 32 + threadIdx.x] = t[threadIdx.x][threadIdx.y];
}

// PARAM: shared-padding: not applicable: no access of 't' has lane addresses the model can evaluate
__global__ void param_stride(const float *in, float *out, int k) {
  __shared__ float t[32][32];
  t[(threadIdx.x * k) % 32][threadIdx.y] = in[threadIdx.x];
  __syncthreads();
  out[threadIdx.x] = t[(threadIdx.x * k) % 32][0];
}

// BIG: shared-padding: not applicable: padding 'big' would take the block's static shared memory past 48 KiB
__global__ void too_big(const float *in, float *out) {
  __shared__ float big[384][32];
  big[threadIdx.x][threadIdx.y] = in[threadIdx.x];
  __syncthreads();
  out[threadIdx.x] = big[threadIdx.x][threadIdx.y];
}

// DYN: shared-padding: not applicable: no __shared__ array of two or more dimensions
__global__ void dyn(const float *in, float *out) {
  extern __shared__ float buf[];
  buf[threadIdx.x] = in[threadIdx.x];
  __syncthreads();
  out[threadIdx.x] = buf[255 - threadIdx.x];
}
