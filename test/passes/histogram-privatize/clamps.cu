// REQUIRES: cuda
// A clamp written as statements after the index's declaration, the way
// naive kernels write it, to a parameter number of bins (the spec gives
// nbins; Analysis/ValueRange.h's symbolic range follows the local to
// [0, nbins - 1]) and to a constant one: a ?: assignment, if / else if,
// two ifs (with '> nbins - 1' and '>= nbins'), min and max statements, and
// the clamp inside a grid-stride loop. Each rewrite sizes its private bins
// by nbins at run time and compiles.
// RUN: rm -rf %t.d && mkdir -p %t.d
// RUN: for k in clamp_ternary clamp_ifelse clamp_ifs clamp_ifs_ge clamp_minmax clamp_loop clamp_floor_neg clamp_ceiling_nbins clamp_in_loop clamp_nbins_assigned clamp_call; do sed "s/\"param_clamp\"/\"$k\"/" %S/Inputs/param-clamp.json > %t.d/$k.json; done
// RUN: forge-port propose %s --spec %t.d/clamp_ternary.json --rules=histogram-privatize --apply -o %t.d/p1.cu 2>&1 | FileCheck %s --check-prefix=TERNARY
// RUN: forge-port propose %t.d/p1.cu --spec %t.d/clamp_ifelse.json --rules=histogram-privatize --apply -o %t.d/p2.cu 2>&1 | FileCheck %s --check-prefix=IFELSE
// RUN: forge-port propose %t.d/p2.cu --spec %t.d/clamp_ifs.json --rules=histogram-privatize --apply -o %t.d/p3.cu 2>&1 | FileCheck %s --check-prefix=IFS
// RUN: forge-port propose %t.d/p3.cu --spec %t.d/clamp_ifs_ge.json --rules=histogram-privatize --apply -o %t.d/p4.cu 2>&1 | FileCheck %s --check-prefix=IFSGE
// RUN: forge-port propose %t.d/p4.cu --spec %t.d/clamp_minmax.json --rules=histogram-privatize --apply -o %t.d/p5.cu 2>&1 | FileCheck %s --check-prefix=MINMAX
// RUN: forge-port propose %t.d/p5.cu --spec %t.d/clamp_loop.json --rules=histogram-privatize --apply -o %t.d/p6.cu 2>&1 | FileCheck %s --check-prefix=LOOP
// RUN: forge-port propose %t.d/p6.cu --kernel const_ternary --block 256 --rules=histogram-privatize --apply -o %t.d/p7.cu 2>&1 | FileCheck %s --check-prefix=CTERNARY
// RUN: forge-port propose %t.d/p7.cu --kernel const_ifelse --block 256 --rules=histogram-privatize --apply -o %t.d/p8.cu 2>&1 | FileCheck %s --check-prefix=CIFELSE
// RUN: forge-port propose %t.d/p8.cu --kernel const_minmax --block 256 --rules=histogram-privatize --apply -o %t.d/p9.cu 2>&1 | FileCheck %s --check-prefix=CMINMAX
// RUN: FileCheck %s --check-prefix=FIX --input-file=%t.d/p9.cu
// RUN: %nvcc -arch=sm_90 -c %t.d/p9.cu -o %t.d/p9.o
// Declines, each with the range it found and why: a floor of -1, a ceiling
// of nbins, the local written in a loop, the parameter assigned by the
// kernel, a call the range does not look into.
// RUN: not forge-port propose %s --spec %t.d/clamp_floor_neg.json --rules=histogram-privatize 2>&1 | FileCheck %s --check-prefix=FLOOR
// RUN: not forge-port propose %s --spec %t.d/clamp_ceiling_nbins.json --rules=histogram-privatize 2>&1 | FileCheck %s --check-prefix=CEIL
// RUN: not forge-port propose %s --spec %t.d/clamp_in_loop.json --rules=histogram-privatize 2>&1 | FileCheck %s --check-prefix=INLOOP
// RUN: not forge-port propose %s --spec %t.d/clamp_nbins_assigned.json --rules=histogram-privatize 2>&1 | FileCheck %s --check-prefix=ASSIGNED
// RUN: not forge-port propose %s --spec %t.d/clamp_call.json --rules=histogram-privatize 2>&1 | FileCheck %s --check-prefix=CALL

// Form 1: one ?: assignment.
__global__ void clamp_ternary(const float *x, unsigned int *bins, int n, int nbins) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    int b = (int)(x[i] * nbins);
    b = b < 0 ? 0 : (b >= nbins ? nbins - 1 : b);
    atomicAdd(&bins[b], 1u);
  }
}
// TERNARY: applied expert:histogram-privatize: a private shared-memory copy of the nbins bins per block
// TERNARY: spec: shared -> (B) * 4

// Form 2: if / else if.
__global__ void clamp_ifelse(const float *x, unsigned int *bins, int n, int nbins) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  int b = (int)(x[i] * nbins);
  if (b < 0)
    b = 0;
  else if (b >= nbins)
    b = nbins - 1;
  atomicAdd(&bins[b], 1u);
}
// IFELSE: applied expert:histogram-privatize: a private shared-memory copy of the nbins bins per block

// Form 3: two ifs, the ceiling as '> nbins - 1' and as '>= nbins'.
__global__ void clamp_ifs(const float *x, unsigned int *bins, int n, int nbins) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    int b = (int)(x[i] * nbins);
    if (b < 0) b = 0;
    if (b > nbins - 1) b = nbins - 1;
    atomicAdd(&bins[b], 1u);
  }
}
// IFS: applied expert:histogram-privatize: a private shared-memory copy of the nbins bins per block

__global__ void clamp_ifs_ge(const float *x, unsigned int *bins, int n, int nbins) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    int b = (int)(x[i] * nbins);
    if (b < 0) b = 0;
    if (b >= nbins) b = nbins - 1;
    atomicAdd(&bins[b], 1u);
  }
}
// IFSGE: applied expert:histogram-privatize: a private shared-memory copy of the nbins bins per block

// Form 4: min and max statements, the ceiling first.
__global__ void clamp_minmax(const float *x, unsigned int *bins, int n, int nbins) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    int b = (int)(x[i] * nbins);
    b = min(b, nbins - 1);
    b = max(b, 0);
    atomicAdd(&bins[b], 1u);
  }
}
// MINMAX: applied expert:histogram-privatize: a private shared-memory copy of the nbins bins per block

// The clamp in the body of a grid-stride loop, the local declared outside.
__global__ void clamp_loop(const float *x, unsigned int *bins, int n, int nbins) {
  int b;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    b = (int)(x[i] * nbins);
    b = b < 0 ? 0 : (b >= nbins ? nbins - 1 : b);
    atomicAdd(&bins[b], 1u);
  }
}
// LOOP: applied expert:histogram-privatize: a private shared-memory copy of the nbins bins per block

// The same statements with a constant number of bins.
#define NB 256
__global__ void const_ternary(const float *x, unsigned int *bins, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    int b = (int)(x[i] * NB);
    b = b < 0 ? 0 : (b >= NB ? NB - 1 : b);
    atomicAdd(&bins[b], 1u);
  }
}
// CTERNARY: applied expert:histogram-privatize: 32 lane copies of the 256 bins per block

__global__ void const_ifelse(const float *x, unsigned int *bins, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  int b = (int)(x[i] * NB);
  if (b < 0)
    b = 0;
  else if (b >= NB)
    b = NB - 1;
  atomicAdd(&bins[b], 1u);
}
// CIFELSE: applied expert:histogram-privatize: 32 lane copies of the 256 bins per block

__global__ void const_minmax(const float *x, unsigned int *bins, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    int b = (int)(x[i] * NB);
    b = min(b, NB - 1);
    b = max(b, 0);
    atomicAdd(&bins[b], 1u);
  }
}
// CMINMAX: applied expert:histogram-privatize: 32 lane copies of the 256 bins per block

// FIX-LABEL: __global__ void clamp_ternary(
// FIX: extern __shared__ unsigned int forge_hist_clamp_ternary[];
// FIX: for (int forge_j = forge_t; forge_j < (int)nbins; forge_j += forge_nt)
// FIX: b = b < 0 ? 0 : (b >= nbins ? nbins - 1 : b);
// FIX: atomicAdd(&forge_hist_clamp_ternary[b], 1u);
// FIX: for (int forge_j = forge_t; forge_j < (int)nbins; forge_j += forge_nt) {
// FIX-LABEL: __global__ void clamp_ifelse(
// FIX: extern __shared__ unsigned int forge_hist_clamp_ifelse[];
// FIX: else if (b >= nbins)
// FIX: atomicAdd(&forge_hist_clamp_ifelse[b], 1u);
// FIX-LABEL: __global__ void clamp_ifs(
// FIX: atomicAdd(&forge_hist_clamp_ifs[b], 1u);
// FIX-LABEL: __global__ void clamp_ifs_ge(
// FIX: atomicAdd(&forge_hist_clamp_ifs_ge[b], 1u);
// FIX-LABEL: __global__ void clamp_minmax(
// FIX: atomicAdd(&forge_hist_clamp_minmax[b], 1u);
// FIX-LABEL: __global__ void clamp_loop(
// FIX: extern __shared__ unsigned int forge_hist_clamp_loop[];
// FIX: atomicAdd(&forge_hist_clamp_loop[b], 1u);
// FIX-LABEL: __global__ void const_ternary(
// FIX: __shared__ unsigned int forge_hist[256][32];
// FIX: atomicAdd(&forge_hist[b][forge_w], 1u);
// FIX-LABEL: __global__ void const_ifelse(
// FIX: atomicAdd(&forge_hist[b][forge_w], 1u);
// FIX-LABEL: __global__ void const_minmax(
// FIX: atomicAdd(&forge_hist[b][forge_w], 1u);

// A floor of -1: bin -1 is outside the bins.
__global__ void clamp_floor_neg(const float *x, unsigned int *bins, int n, int nbins) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    int b = (int)(x[i] * nbins);
    b = b < 0 ? -1 : (b >= nbins ? nbins - 1 : b);
    atomicAdd(&bins[b], 1u);
  }
}
// FLOOR: not applicable: the bins index 'b' of 'atomicAdd(&bins[b], 1u)' is not bounded ({{.*}}); where the atomic runs it is in [-1, nbins - 1]{{$}}

// A ceiling of nbins: one bin too many.
__global__ void clamp_ceiling_nbins(const float *x, unsigned int *bins, int n, int nbins) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    int b = (int)(x[i] * nbins);
    if (b < 0) b = 0;
    if (b > nbins) b = nbins;
    atomicAdd(&bins[b], 1u);
  }
}
// CEIL: not applicable: the bins index 'b' of 'atomicAdd(&bins[b], 1u)' is not bounded ({{.*}}); where the atomic runs it is in [0, nbins] (the launch sizes the bins by 'nbins': a clamp's ceiling is 'nbins - 1'){{$}}

// The local written in a loop (wrapped into range rather than clamped): the
// range does not follow loops.
__global__ void clamp_in_loop(const float *x, unsigned int *bins, int n, int nbins) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    int b = (int)(x[i] * nbins);
    while (b >= nbins)
      b -= nbins;
    if (b < 0) b = 0;
    atomicAdd(&bins[b], 1u);
  }
}
// INLOOP: not applicable: the bins index 'b' of 'atomicAdd(&bins[b], 1u)' is not bounded ({{.*}}); where the atomic runs it is in [0, 2147483647]: 'b' is assigned in the loop at line [[@LINE-6]]{{$}}

// The bound itself assigned by the kernel: the private copy is sized by
// the launch's nbins.
__global__ void clamp_nbins_assigned(const float *x, unsigned int *bins, int n, int nbins) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (nbins > 4096)
    nbins = 4096;
  if (i < n) {
    int b = (int)(x[i] * nbins);
    b = b < 0 ? 0 : (b >= nbins ? nbins - 1 : b);
    atomicAdd(&bins[b], 1u);
  }
}
// ASSIGNED: not applicable: the bins index 'b' of 'atomicAdd(&bins[b], 1u)' is not bounded ({{.*}}); where the atomic runs it is in {{.*}}line [[@LINE-7]] assigns the parameter 'nbins'

// A clamp in a function of the kernel's file: the range does not look into it.
__device__ int clamp_bin(int v, int hi) { return v < 0 ? 0 : (v > hi ? hi : v); }
__global__ void clamp_call(const float *x, unsigned int *bins, int n, int nbins) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    int b = (int)(x[i] * nbins);
    b = clamp_bin(b, nbins - 1);
    atomicAdd(&bins[b], 1u);
  }
}
// CALL: not applicable: the bins index 'b' of 'atomicAdd(&bins[b], 1u)' is not bounded ({{.*}}); where the atomic runs it is in [-2147483648, 2147483647]: {{.*}}line [[@LINE-4]] sets 'b' to 'clamp_bin(b, nbins - 1)', whose range is [-2147483648, 2147483647]{{$}}
