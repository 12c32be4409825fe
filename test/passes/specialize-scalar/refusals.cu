// REQUIRES: cuda
// Where specialize-scalar declines, and why.
// RUN: not forge-port propose %s --kernel matvec --spec %S/Inputs/matvec.json \
// RUN:   --rules=specialize-scalar 2>&1 | FileCheck %s --check-prefix=LONG
// RUN: not forge-port propose %s --kernel taps --rules=specialize-scalar --block 256 2>&1 \
// RUN:   | FileCheck %s --check-prefix=NOSPEC
// RUN: sed 's/"taps"/"taps_shared"/' %S/Inputs/taps.json > %t.taps_shared.json
// RUN: not forge-port propose %s --kernel taps_shared --spec %t.taps_shared.json \
// RUN:   --rules=specialize-scalar 2>&1 | FileCheck %s --check-prefix=SHARED
// RUN: sed 's/"taps"/"taps_addr"/' %S/Inputs/taps.json > %t.taps_addr.json
// RUN: not forge-port propose %s --kernel taps_addr --spec %t.taps_addr.json \
// RUN:   --rules=specialize-scalar 2>&1 | FileCheck %s --check-prefix=ADDR
// RUN: sed 's/"taps"/"taps_tpl"/' %S/Inputs/taps.json > %t.taps_tpl.json
// RUN: not forge-port propose %s --kernel taps_tpl --spec %t.taps_tpl.json \
// RUN:   --rules=specialize-scalar 2>&1 | FileCheck %s --check-prefix=TPL
// RUN: forge-port propose %s --kernel taps --spec %S/Inputs/taps.json \
// RUN:   --rules=specialize-scalar 2>&1 | FileCheck %s --check-prefix=TAPS

// A loop of n = 4096 iterations: unrolling it fully is not what pays.
__global__ void matvec(const float *A, const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float s = 0.0f;
    for (int k = 0; k < n; ++k)
      s += A[i * n + k] * x[k];
    y[i] = s;
  }
}
// LONG: specialize-scalar: not applicable: the loop over 'k' (line {{[0-9]+}}) runs 4096 iterations at the spec's values (specialising pays for loops of 1 to 64)

__global__ void taps(const float *in, float *out, int n, int t) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float s = 0.0f;
    for (int j = 0; j < t; ++j)
      s += in[i + j];
    out[i] = s;
  }
}
// NOSPEC: specialize-scalar: not applicable: no launch spec: the values to specialise for are the spec's scalars
// TAPS: # expert:specialize-scalar: a copy of the body with 't' = 4 as compile-time constants

__global__ void taps_shared(const float *in, float *out, int n, int t) {
  __shared__ float s_in[256];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  s_in[threadIdx.x] = i < n ? in[i] : 0.0f;
  __syncthreads();
  float s = 0.0f;
  for (int j = 0; j < t; ++j)
    s += s_in[(threadIdx.x + j) % 256];
  if (i < n)
    out[i] = s;
}
// SHARED: specialize-scalar: not applicable: the kernel declares __shared__ arrays

__device__ void bump(int *p) { *p += 0; }
__global__ void taps_addr(const float *in, float *out, int n, int t) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  bump(&t);
  if (i < n) {
    float s = 0.0f;
    for (int j = 0; j < t; ++j)
      s += in[i + j];
    out[i] = s;
  }
}
// ADDR: specialize-scalar: not applicable: no loop's trip count depends on an integer parameter

template <typename T>
__global__ void taps_tpl(const T *in, T *out, int n, int t) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    T s = 0;
    for (int j = 0; j < t; ++j)
      s += in[i + j];
    out[i] = s;
  }
}
template __global__ void taps_tpl<float>(const float *, float *, int, int);
// TPL: specialize-scalar: not applicable: a template kernel
