// REQUIRES: cuda
// Each precondition that fails says which, and nothing is proposed.
// RUN: not forge-port propose %s --kernel histogram --block 256 --rules=hierarchical-reduction 2>&1 | FileCheck %s --check-prefix=HIST
// RUN: not forge-port propose %s --kernel per_thread_slot --block 256 --rules=hierarchical-reduction 2>&1 | FileCheck %s --check-prefix=SLOT
// RUN: not forge-port propose %s --kernel uses_old --block 256 --rules=hierarchical-reduction 2>&1 | FileCheck %s --check-prefix=OLD
// RUN: not forge-port propose %s --kernel aliased --block 256 --rules=hierarchical-reduction 2>&1 | FileCheck %s --check-prefix=ALIAS
// RUN: not forge-port propose %s --kernel also_stores --block 256 --rules=hierarchical-reduction 2>&1 | FileCheck %s --check-prefix=STORE
// RUN: not forge-port propose %s --kernel cas_max --block 256 --rules=hierarchical-reduction 2>&1 | FileCheck %s --check-prefix=CAS
// RUN: not forge-port propose %s --kernel wrapped_cas --block 256 --rules=hierarchical-reduction 2>&1 | FileCheck %s --check-prefix=WRAP
// RUN: not forge-port propose %s --kernel tree_then_atomic --block 256 --rules=hierarchical-reduction 2>&1 | FileCheck %s --check-prefix=SYNC
// RUN: not forge-port propose %s --kernel wraps --block 256 --rules=hierarchical-reduction 2>&1 | FileCheck %s --check-prefix=INC
// RUN: not forge-port propose %s --kernel no_atomic --block 256 --rules=hierarchical-reduction 2>&1 | FileCheck %s --check-prefix=NONE
// RUN: not forge-port propose %s --kernel half_sum --block 256 --rules=hierarchical-reduction 2>&1 | FileCheck %s --check-prefix=TYPE
// RUN: not forge-port propose %s --kernel shuffles --block 256 --rules=hierarchical-reduction 2>&1 | FileCheck %s --check-prefix=SHFL
// HIST: forge-port: note: hierarchical-reduction: not applicable: 'atomicAdd' at line {{[0-9]+}} goes to a data-dependent address (a histogram or a scatter): 'x[i]' is loaded from memory: data-dependent
// SLOT: forge-port: note: hierarchical-reduction: not applicable: 'atomicAdd' at line {{[0-9]+}} goes to an address that differs between the threads of a block ('atomicAdd(&y[i % 64], x[i])'); only one address per block or per grid is combined
// OLD: forge-port: note: hierarchical-reduction: not applicable: the value 'atomicAdd' at line {{[0-9]+}} returns is used; it depends on the order of the atomics
// ALIAS: forge-port: note: hierarchical-reduction: not applicable: the kernel reads 'x' (line {{[0-9]+}}), which its atomic updates
// STORE: forge-port: note: hierarchical-reduction: not applicable: the kernel also writes 'y' (line {{[0-9]+}}: y[i]); only a kernel whose one effect is the reduction is rewritten
// CAS: forge-port: note: hierarchical-reduction: not applicable: 'atomicCAS' at line {{[0-9]+}} is not a reduction the rule combines (a lock, or a compare-and-swap loop written in the kernel; an argmax packed into such a loop is not rewritten)
// WRAP: forge-port: note: hierarchical-reduction: not applicable: 'atomicMaxFloat' at line {{[0-9]+}} is a function the analysis does not know as an atomic reduction
// SYNC: forge-port: note: hierarchical-reduction: not applicable: the kernel cannot be restructured: {{.*}}
// INC: forge-port: note: hierarchical-reduction: not applicable: 'atomicInc' at line {{[0-9]+}} {{.*}}
// NONE: forge-port: note: hierarchical-reduction: not applicable: no atomic reduction: the kernel has no atomic
// TYPE: forge-port: note: hierarchical-reduction: not applicable: 'atomicAdd' at line {{[0-9]+}} combines values of type '{{.*}}'; the rule combines int, unsigned, 64-bit integers, float and double
// SHFL: forge-port: note: hierarchical-reduction: not applicable: the kernel cannot be restructured: it calls '__shfl_down_sync'

#include <cuda_fp16.h>

__global__ void histogram(const int *x, int *bins, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(&bins[x[i]], 1);
}

__global__ void per_thread_slot(const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(&y[i % 64], x[i]);
}

// A ticket: the old value is the thread's position in the order of arrival.
__global__ void uses_old(const int *x, int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    int before = atomicAdd(out, x[i]);
    if (before > 1000)
      __trap();
  }
}

__global__ void aliased(float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(&x[0], x[i]);
}

__global__ void also_stores(const float *x, float *sum, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    y[i] = 2.0f * x[i];
    atomicAdd(sum, x[i]);
  }
}

__global__ void cas_max(const float *x, float *m, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int *addr = (int *)m;
  int old = *addr, assumed;
  do {
    assumed = old;
    old = atomicCAS(addr, assumed, __float_as_int(fmaxf(x[i], __int_as_float(assumed))));
  } while (assumed != old);
}

__device__ float atomicMaxFloat(float *a, float v) {
  int *ai = (int *)a;
  int old = *ai, assumed;
  do {
    assumed = old;
    old = atomicCAS(ai, assumed, __float_as_int(fmaxf(v, __int_as_float(assumed))));
  } while (assumed != old);
  return __int_as_float(old);
}
__global__ void wrapped_cas(const float *x, float *m, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicMaxFloat(m, x[i]);
}

__global__ void tree_then_atomic(const float *x, float *sum, int n) {
  __shared__ float s[256];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  s[threadIdx.x] = i < n ? x[i] : 0.f;
  __syncthreads();
  if (threadIdx.x == 0) {
    float t = 0;
    for (int k = 0; k < 256; ++k)
      t += s[k];
    atomicAdd(sum, t);
  }
}

__global__ void wraps(const unsigned *x, unsigned *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicInc(out, x[i]);
}

__global__ void no_atomic(const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i];
}

__global__ void half_sum(const __half *x, __half *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(out, x[i]);
}

__global__ void shuffles(const float *x, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = i < n ? x[i] : 0.0f;
  v += __shfl_down_sync(0xffffffffu, v, 1);
  if (i < n) atomicAdd(out, v);
}
