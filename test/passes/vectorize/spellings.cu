// REQUIRES: cuda
// The elementwise map in the spellings people write, vectorised: an early
// exit, the index through locals with double elements, size_t with int
// elements, a mask that ends the element early, a condition on the
// element, a kernel that already strides over the grid, and arithmetic on
// the index (kept in the index's own type). Each result compiles with nvcc
// into 16-byte loads and stores.

// RUN: forge-port propose %s --kernel early_exit --rules=vectorize --apply -o %t.early_exit.cu 2>&1 | FileCheck %s --check-prefix=NOTE-EARLY-EXIT
// RUN: FileCheck %s --check-prefix=EARLY-EXIT --match-full-lines --input-file=%t.early_exit.cu
// RUN: %nvcc -arch=sm_90 -ptx %t.early_exit.cu -o - | FileCheck %s --check-prefix=PTX-EARLY-EXIT
// RUN: forge-port propose %s --kernel through_locals --rules=vectorize --apply -o %t.through_locals.cu 2>&1 | FileCheck %s --check-prefix=NOTE-THROUGH-LOCALS
// RUN: FileCheck %s --check-prefix=THROUGH-LOCALS --match-full-lines --input-file=%t.through_locals.cu
// RUN: %nvcc -arch=sm_90 -ptx %t.through_locals.cu -o - | FileCheck %s --check-prefix=PTX-THROUGH-LOCALS
// RUN: forge-port propose %s --kernel size_t_exit --rules=vectorize --apply -o %t.size_t_exit.cu 2>&1 | FileCheck %s --check-prefix=NOTE-SIZE-T-EXIT
// RUN: FileCheck %s --check-prefix=SIZE-T-EXIT --match-full-lines --input-file=%t.size_t_exit.cu
// RUN: %nvcc -arch=sm_90 -ptx %t.size_t_exit.cu -o - | FileCheck %s --check-prefix=PTX-SIZE-T-EXIT
// RUN: forge-port propose %s --kernel masked_exit --rules=vectorize --apply -o %t.masked_exit.cu 2>&1 | FileCheck %s --check-prefix=NOTE-MASKED-EXIT
// RUN: FileCheck %s --check-prefix=MASKED-EXIT --match-full-lines --input-file=%t.masked_exit.cu
// RUN: %nvcc -arch=sm_90 -ptx %t.masked_exit.cu -o - | FileCheck %s --check-prefix=PTX-MASKED-EXIT
// RUN: forge-port propose %s --kernel positive_only --rules=vectorize --apply -o %t.positive_only.cu 2>&1 | FileCheck %s --check-prefix=NOTE-POSITIVE-ONLY
// RUN: FileCheck %s --check-prefix=POSITIVE-ONLY --match-full-lines --input-file=%t.positive_only.cu
// RUN: %nvcc -arch=sm_90 -ptx %t.positive_only.cu -o - | FileCheck %s --check-prefix=PTX-POSITIVE-ONLY
// RUN: forge-port propose %s --kernel strided --rules=vectorize --apply -o %t.strided.cu 2>&1 | FileCheck %s --check-prefix=NOTE-STRIDED
// RUN: FileCheck %s --check-prefix=STRIDED --match-full-lines --input-file=%t.strided.cu
// RUN: %nvcc -arch=sm_90 -ptx %t.strided.cu -o - | FileCheck %s --check-prefix=PTX-STRIDED
// RUN: forge-port propose %s --kernel hash --rules=vectorize --apply -o %t.hash.cu 2>&1 | FileCheck %s --check-prefix=NOTE-HASH
// RUN: FileCheck %s --check-prefix=HASH --match-full-lines --input-file=%t.hash.cu
// RUN: %nvcc -arch=sm_90 -ptx %t.hash.cu -o - | FileCheck %s --check-prefix=PTX-HASH

__global__ void early_exit(const float *x, float *y, float a, int n) {
  int i = threadIdx.x + blockDim.x * blockIdx.x;
  if (i >= n) return;
  float v = x[i];
  y[i] = a * v + y[i];
}

// EARLY-EXIT:      __global__ void early_exit(const float *x, float *y, float a, int n) {
// EARLY-EXIT-NEXT:   // 4 elements per access while every pointer is 16-byte aligned (cudaMalloc
// EARLY-EXIT-NEXT:   // gives 256 bytes), then one at a time; both loops stride over the grid.
// EARLY-EXIT-NEXT:   const long long forge_n = n;
// EARLY-EXIT-NEXT:   const long long forge_first = (long long)blockIdx.x * blockDim.x + threadIdx.x;
// EARLY-EXIT-NEXT:   const long long forge_stride = (long long)blockDim.x * gridDim.x;
// EARLY-EXIT-NEXT:   const bool forge_aligned = ((reinterpret_cast<size_t>(x) | reinterpret_cast<size_t>(y)) % 16) == 0;
// EARLY-EXIT-NEXT:   const long long forge_vectors = forge_aligned && forge_n > 0 ? forge_n / 4 : 0;
// EARLY-EXIT-NEXT:   for (long long forge_v = forge_first; forge_v < forge_vectors; forge_v += forge_stride) {
// EARLY-EXIT-NEXT:     const float4 forge_x = reinterpret_cast<const float4 *>(x)[forge_v];
// EARLY-EXIT-NEXT:     float4 forge_y = reinterpret_cast<float4 *>(y)[forge_v];
// EARLY-EXIT-NEXT:     {
// EARLY-EXIT-NEXT:       float v = forge_x.x;
// EARLY-EXIT-NEXT:       forge_y.x = a * v + forge_y.x;
// EARLY-EXIT-NEXT:     }
// EARLY-EXIT-NEXT:     {
// EARLY-EXIT-NEXT:       float v = forge_x.y;
// EARLY-EXIT-NEXT:       forge_y.y = a * v + forge_y.y;
// EARLY-EXIT-NEXT:     }
// EARLY-EXIT-NEXT:     {
// EARLY-EXIT-NEXT:       float v = forge_x.z;
// EARLY-EXIT-NEXT:       forge_y.z = a * v + forge_y.z;
// EARLY-EXIT-NEXT:     }
// EARLY-EXIT-NEXT:     {
// EARLY-EXIT-NEXT:       float v = forge_x.w;
// EARLY-EXIT-NEXT:       forge_y.w = a * v + forge_y.w;
// EARLY-EXIT-NEXT:     }
// EARLY-EXIT-NEXT:     reinterpret_cast<float4 *>(y)[forge_v] = forge_y;
// EARLY-EXIT-NEXT:   }
// EARLY-EXIT-NEXT:   for (long long i = forge_vectors * 4 + forge_first; i < forge_n; i += forge_stride) {
// EARLY-EXIT-NEXT:     float v = x[i];
// EARLY-EXIT-NEXT:     y[i] = a * v + y[i];
// EARLY-EXIT-NEXT:   }
// EARLY-EXIT-NEXT: }

// NOTE-EARLY-EXIT: forge-port: note: applied expert:vectorize: 16-byte accesses (float4) to x, y
// PTX-EARLY-EXIT: ld.global.v4.
// PTX-EARLY-EXIT: st.global.v4.

__global__ void through_locals(const double *x, double *y, int n) {
  int tid = threadIdx.x;
  int gid = blockIdx.x * blockDim.x + tid;
  const double two = 2.0;
  if (gid < n) {
    y[gid] = two * x[gid];
  }
}

// THROUGH-LOCALS:      __global__ void through_locals(const double *x, double *y, int n) {
// THROUGH-LOCALS-NEXT:   int tid = threadIdx.x;
// THROUGH-LOCALS-NEXT:   const double two = 2.0;
// THROUGH-LOCALS-NEXT:   // 2 elements per access while every pointer is 16-byte aligned (cudaMalloc
// THROUGH-LOCALS-NEXT:   // gives 256 bytes), then one at a time; both loops stride over the grid.
// THROUGH-LOCALS-NEXT:   const long long forge_n = n;
// THROUGH-LOCALS-NEXT:   const long long forge_first = (long long)blockIdx.x * blockDim.x + threadIdx.x;
// THROUGH-LOCALS-NEXT:   const long long forge_stride = (long long)blockDim.x * gridDim.x;
// THROUGH-LOCALS-NEXT:   const bool forge_aligned = ((reinterpret_cast<size_t>(x) | reinterpret_cast<size_t>(y)) % 16) == 0;
// THROUGH-LOCALS-NEXT:   const long long forge_vectors = forge_aligned && forge_n > 0 ? forge_n / 2 : 0;
// THROUGH-LOCALS-NEXT:   for (long long forge_v = forge_first; forge_v < forge_vectors; forge_v += forge_stride) {
// THROUGH-LOCALS-NEXT:     const double2 forge_x = reinterpret_cast<const double2 *>(x)[forge_v];
// THROUGH-LOCALS-NEXT:     double2 forge_y;
// THROUGH-LOCALS-NEXT:     {
// THROUGH-LOCALS-NEXT:       forge_y.x = two * forge_x.x;
// THROUGH-LOCALS-NEXT:     }
// THROUGH-LOCALS-NEXT:     {
// THROUGH-LOCALS-NEXT:       forge_y.y = two * forge_x.y;
// THROUGH-LOCALS-NEXT:     }
// THROUGH-LOCALS-NEXT:     reinterpret_cast<double2 *>(y)[forge_v] = forge_y;
// THROUGH-LOCALS-NEXT:   }
// THROUGH-LOCALS-NEXT:   for (long long gid = forge_vectors * 2 + forge_first; gid < forge_n; gid += forge_stride) {
// THROUGH-LOCALS-NEXT:     y[gid] = two * x[gid];
// THROUGH-LOCALS-NEXT:   }
// THROUGH-LOCALS-NEXT: }

// NOTE-THROUGH-LOCALS: forge-port: note: applied expert:vectorize: 16-byte accesses (double2) to x, y
// PTX-THROUGH-LOCALS: ld.global.v2.
// PTX-THROUGH-LOCALS: st.global.v2.

__global__ void size_t_exit(const int *x, int *y, size_t n) {
  const size_t idx = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (idx >= n) { return; }
  y[idx] = x[idx] + 1;
}

// SIZE-T-EXIT:      __global__ void size_t_exit(const int *x, int *y, size_t n) {
// SIZE-T-EXIT-NEXT:   // 4 elements per access while every pointer is 16-byte aligned (cudaMalloc
// SIZE-T-EXIT-NEXT:   // gives 256 bytes), then one at a time; both loops stride over the grid.
// SIZE-T-EXIT-NEXT:   const size_t forge_n = n;
// SIZE-T-EXIT-NEXT:   const size_t forge_first = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
// SIZE-T-EXIT-NEXT:   const size_t forge_stride = (size_t)blockDim.x * gridDim.x;
// SIZE-T-EXIT-NEXT:   const bool forge_aligned = ((reinterpret_cast<size_t>(x) | reinterpret_cast<size_t>(y)) % 16) == 0;
// SIZE-T-EXIT-NEXT:   const size_t forge_vectors = forge_aligned && forge_n > 0 ? forge_n / 4 : 0;
// SIZE-T-EXIT-NEXT:   for (size_t forge_v = forge_first; forge_v < forge_vectors; forge_v += forge_stride) {
// SIZE-T-EXIT-NEXT:     const int4 forge_x = reinterpret_cast<const int4 *>(x)[forge_v];
// SIZE-T-EXIT-NEXT:     int4 forge_y;
// SIZE-T-EXIT-NEXT:     {
// SIZE-T-EXIT-NEXT:       forge_y.x = forge_x.x + 1;
// SIZE-T-EXIT-NEXT:     }
// SIZE-T-EXIT-NEXT:     {
// SIZE-T-EXIT-NEXT:       forge_y.y = forge_x.y + 1;
// SIZE-T-EXIT-NEXT:     }
// SIZE-T-EXIT-NEXT:     {
// SIZE-T-EXIT-NEXT:       forge_y.z = forge_x.z + 1;
// SIZE-T-EXIT-NEXT:     }
// SIZE-T-EXIT-NEXT:     {
// SIZE-T-EXIT-NEXT:       forge_y.w = forge_x.w + 1;
// SIZE-T-EXIT-NEXT:     }
// SIZE-T-EXIT-NEXT:     reinterpret_cast<int4 *>(y)[forge_v] = forge_y;
// SIZE-T-EXIT-NEXT:   }
// SIZE-T-EXIT-NEXT:   for (size_t idx = forge_vectors * 4 + forge_first; idx < forge_n; idx += forge_stride) {
// SIZE-T-EXIT-NEXT:     y[idx] = x[idx] + 1;
// SIZE-T-EXIT-NEXT:   }
// SIZE-T-EXIT-NEXT: }

// NOTE-SIZE-T-EXIT: forge-port: note: applied expert:vectorize: 16-byte accesses (int4) to x, y
// PTX-SIZE-T-EXIT: ld.global.v4.
// PTX-SIZE-T-EXIT: st.global.v4.

__global__ void masked_exit(const float *x, float *y, int n, const int *mask) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n || mask[i] == 0) return;
  y[i] = x[i];
}

// MASKED-EXIT:      __global__ void masked_exit(const float *x, float *y, int n, const int *mask) {
// MASKED-EXIT-NEXT:   // 4 elements per access while every pointer is 16-byte aligned (cudaMalloc
// MASKED-EXIT-NEXT:   // gives 256 bytes), then one at a time; both loops stride over the grid.
// MASKED-EXIT-NEXT:   const long long forge_n = n;
// MASKED-EXIT-NEXT:   const long long forge_first = (long long)blockIdx.x * blockDim.x + threadIdx.x;
// MASKED-EXIT-NEXT:   const long long forge_stride = (long long)blockDim.x * gridDim.x;
// MASKED-EXIT-NEXT:   const bool forge_aligned = ((reinterpret_cast<size_t>(x) | reinterpret_cast<size_t>(y) | reinterpret_cast<size_t>(mask)) % 16) == 0;
// MASKED-EXIT-NEXT:   const long long forge_vectors = forge_aligned && forge_n > 0 ? forge_n / 4 : 0;
// MASKED-EXIT-NEXT:   for (long long forge_v = forge_first; forge_v < forge_vectors; forge_v += forge_stride) {
// MASKED-EXIT-NEXT:     const float4 forge_x = reinterpret_cast<const float4 *>(x)[forge_v];
// MASKED-EXIT-NEXT:     float4 forge_y = reinterpret_cast<float4 *>(y)[forge_v];
// MASKED-EXIT-NEXT:     const int4 forge_mask = reinterpret_cast<const int4 *>(mask)[forge_v];
// MASKED-EXIT-NEXT:     if (!(forge_mask.x == 0)) {
// MASKED-EXIT-NEXT:       forge_y.x = forge_x.x;
// MASKED-EXIT-NEXT:     }
// MASKED-EXIT-NEXT:     if (!(forge_mask.y == 0)) {
// MASKED-EXIT-NEXT:       forge_y.y = forge_x.y;
// MASKED-EXIT-NEXT:     }
// MASKED-EXIT-NEXT:     if (!(forge_mask.z == 0)) {
// MASKED-EXIT-NEXT:       forge_y.z = forge_x.z;
// MASKED-EXIT-NEXT:     }
// MASKED-EXIT-NEXT:     if (!(forge_mask.w == 0)) {
// MASKED-EXIT-NEXT:       forge_y.w = forge_x.w;
// MASKED-EXIT-NEXT:     }
// MASKED-EXIT-NEXT:     reinterpret_cast<float4 *>(y)[forge_v] = forge_y;
// MASKED-EXIT-NEXT:   }
// MASKED-EXIT-NEXT:   for (long long i = forge_vectors * 4 + forge_first; i < forge_n; i += forge_stride) {
// MASKED-EXIT-NEXT:     if (mask[i] == 0) continue;
// MASKED-EXIT-NEXT:     y[i] = x[i];
// MASKED-EXIT-NEXT:   }
// MASKED-EXIT-NEXT: }

// NOTE-MASKED-EXIT: forge-port: note: applied expert:vectorize: 16-byte accesses (float4, int4) to x, y, mask
// PTX-MASKED-EXIT: ld.global.v4.
// PTX-MASKED-EXIT: st.global.v4.

__global__ void positive_only(const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && x[i] > 0.f) {
    y[i] = x[i];
  }
}

// POSITIVE-ONLY:      __global__ void positive_only(const float *x, float *y, int n) {
// POSITIVE-ONLY-NEXT:   // 4 elements per access while every pointer is 16-byte aligned (cudaMalloc
// POSITIVE-ONLY-NEXT:   // gives 256 bytes), then one at a time; both loops stride over the grid.
// POSITIVE-ONLY-NEXT:   const long long forge_n = n;
// POSITIVE-ONLY-NEXT:   const long long forge_first = (long long)blockIdx.x * blockDim.x + threadIdx.x;
// POSITIVE-ONLY-NEXT:   const long long forge_stride = (long long)blockDim.x * gridDim.x;
// POSITIVE-ONLY-NEXT:   const bool forge_aligned = ((reinterpret_cast<size_t>(x) | reinterpret_cast<size_t>(y)) % 16) == 0;
// POSITIVE-ONLY-NEXT:   const long long forge_vectors = forge_aligned && forge_n > 0 ? forge_n / 4 : 0;
// POSITIVE-ONLY-NEXT:   for (long long forge_v = forge_first; forge_v < forge_vectors; forge_v += forge_stride) {
// POSITIVE-ONLY-NEXT:     const float4 forge_x = reinterpret_cast<const float4 *>(x)[forge_v];
// POSITIVE-ONLY-NEXT:     float4 forge_y = reinterpret_cast<float4 *>(y)[forge_v];
// POSITIVE-ONLY-NEXT:     { if (forge_x.x > 0.f) {
// POSITIVE-ONLY-NEXT:       forge_y.x = forge_x.x;
// POSITIVE-ONLY-NEXT:     } }
// POSITIVE-ONLY-NEXT:     { if (forge_x.y > 0.f) {
// POSITIVE-ONLY-NEXT:       forge_y.y = forge_x.y;
// POSITIVE-ONLY-NEXT:     } }
// POSITIVE-ONLY-NEXT:     { if (forge_x.z > 0.f) {
// POSITIVE-ONLY-NEXT:       forge_y.z = forge_x.z;
// POSITIVE-ONLY-NEXT:     } }
// POSITIVE-ONLY-NEXT:     { if (forge_x.w > 0.f) {
// POSITIVE-ONLY-NEXT:       forge_y.w = forge_x.w;
// POSITIVE-ONLY-NEXT:     } }
// POSITIVE-ONLY-NEXT:     reinterpret_cast<float4 *>(y)[forge_v] = forge_y;
// POSITIVE-ONLY-NEXT:   }
// POSITIVE-ONLY-NEXT:   for (long long i = forge_vectors * 4 + forge_first; i < forge_n; i += forge_stride)
// POSITIVE-ONLY-NEXT:     if (x[i] > 0.f) {
// POSITIVE-ONLY-NEXT:       y[i] = x[i];
// POSITIVE-ONLY-NEXT:     }
// POSITIVE-ONLY-NEXT: }

// NOTE-POSITIVE-ONLY: forge-port: note: applied expert:vectorize: 16-byte accesses (float4) to x, y
// PTX-POSITIVE-ONLY: ld.global.v4.
// PTX-POSITIVE-ONLY: st.global.v4.

__global__ void strided(const float *in, float *out, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    out[i] = in[i];
}

// STRIDED:      __global__ void strided(const float *in, float *out, int n) {
// STRIDED-NEXT:   // 4 elements per access while every pointer is 16-byte aligned (cudaMalloc
// STRIDED-NEXT:   // gives 256 bytes), then one at a time; both loops stride over the grid.
// STRIDED-NEXT:   const long long forge_n = n;
// STRIDED-NEXT:   const long long forge_first = (long long)blockIdx.x * blockDim.x + threadIdx.x;
// STRIDED-NEXT:   const long long forge_stride = (long long)blockDim.x * gridDim.x;
// STRIDED-NEXT:   const bool forge_aligned = ((reinterpret_cast<size_t>(in) | reinterpret_cast<size_t>(out)) % 16) == 0;
// STRIDED-NEXT:   const long long forge_vectors = forge_aligned && forge_n > 0 ? forge_n / 4 : 0;
// STRIDED-NEXT:   for (long long forge_v = forge_first; forge_v < forge_vectors; forge_v += forge_stride) {
// STRIDED-NEXT:     const float4 forge_in = reinterpret_cast<const float4 *>(in)[forge_v];
// STRIDED-NEXT:     float4 forge_out;
// STRIDED-NEXT:     { forge_out.x = forge_in.x; }
// STRIDED-NEXT:     { forge_out.y = forge_in.y; }
// STRIDED-NEXT:     { forge_out.z = forge_in.z; }
// STRIDED-NEXT:     { forge_out.w = forge_in.w; }
// STRIDED-NEXT:     reinterpret_cast<float4 *>(out)[forge_v] = forge_out;
// STRIDED-NEXT:   }
// STRIDED-NEXT:   for (long long i = forge_vectors * 4 + forge_first; i < forge_n; i += forge_stride)
// STRIDED-NEXT:     out[i] = in[i];
// STRIDED-NEXT: }

// NOTE-STRIDED: forge-port: note: applied expert:vectorize: 16-byte accesses (float4) to in, out
// PTX-STRIDED: ld.global.v4.
// PTX-STRIDED: st.global.v4.

__global__ void hash(unsigned *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = (i * 2654435761u) ^ (i - 5u);
}

// HASH:      __global__ void hash(unsigned *y, int n) {
// HASH-NEXT:   // 4 elements per access while every pointer is 16-byte aligned (cudaMalloc
// HASH-NEXT:   // gives 256 bytes), then one at a time; both loops stride over the grid.
// HASH-NEXT:   const long long forge_n = n;
// HASH-NEXT:   const long long forge_first = (long long)blockIdx.x * blockDim.x + threadIdx.x;
// HASH-NEXT:   const long long forge_stride = (long long)blockDim.x * gridDim.x;
// HASH-NEXT:   const bool forge_aligned = ((reinterpret_cast<size_t>(y)) % 16) == 0;
// HASH-NEXT:   const long long forge_vectors = forge_aligned && forge_n > 0 ? forge_n / 4 : 0;
// HASH-NEXT:   for (long long forge_v = forge_first; forge_v < forge_vectors; forge_v += forge_stride) {
// HASH-NEXT:     uint4 forge_y;
// HASH-NEXT:     { forge_y.x = (((int)(forge_v * 4 + 0)) * 2654435761u) ^ (((int)(forge_v * 4 + 0)) - 5u); }
// HASH-NEXT:     { forge_y.y = (((int)(forge_v * 4 + 1)) * 2654435761u) ^ (((int)(forge_v * 4 + 1)) - 5u); }
// HASH-NEXT:     { forge_y.z = (((int)(forge_v * 4 + 2)) * 2654435761u) ^ (((int)(forge_v * 4 + 2)) - 5u); }
// HASH-NEXT:     { forge_y.w = (((int)(forge_v * 4 + 3)) * 2654435761u) ^ (((int)(forge_v * 4 + 3)) - 5u); }
// HASH-NEXT:     reinterpret_cast<uint4 *>(y)[forge_v] = forge_y;
// HASH-NEXT:   }
// HASH-NEXT:   for (long long i = forge_vectors * 4 + forge_first; i < forge_n; i += forge_stride)
// HASH-NEXT:     y[i] = (((int)i) * 2654435761u) ^ (((int)i) - 5u);
// HASH-NEXT: }

// NOTE-HASH: forge-port: note: applied expert:vectorize: 16-byte accesses (uint4) to y
// PTX-HASH: st.global.v4.
