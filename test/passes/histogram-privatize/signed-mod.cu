// REQUIRES: cuda
// A histogram of signed keys: the remainder by the number of bins is in
// [1 - nbins, nbins - 1] (Analysis/ValueRange.h: C++ keeps the dividend's
// sign), and the usual correction `if (b < 0) b += nbins;` makes it
// [0, nbins - 1] on the path where it runs, [0, nbins - 1] after the join.
// The spellings of the correction (braces, ?:, a negation), abs of the
// remainder, an unsigned dividend, and with a constant number of bins
// (v % B + B) % B, ((v % B) + B) % B, and a subtraction above the bins, are
// proposed; each rewrite compiles. Spellings that are not bounded are
// refused with the range where the atomic runs.
// RUN: rm -rf %t.d && mkdir -p %t.d
// RUN: for k in hist_mod mod_braces mod_ternary mod_negate mod_abs mod_unsigned fix_alone fix_le fix_loop twice_param; do sed -e "s/\"hist_mod\"/\"$k\"/" -e 's/"data"/"keys"/' -e 's/"bins"/"counts"/' -e 's/"u32", "count": "N", "init": {"kind": "uniform", "min": 0,/"i32", "count": "N", "init": {"kind": "uniform", "min": -100000,/' -e 's/"args": \[.*\]/"args": ["keys", "counts", "n", "nbins"]/' %S/Inputs/modulo.json > %t.d/$k.json; done
// RUN: forge-port propose %s --spec %t.d/hist_mod.json --rules=histogram-privatize --apply -o %t.d/p1.cu 2>&1 | FileCheck %s --check-prefix=HIST
// RUN: forge-port propose %t.d/p1.cu --spec %t.d/mod_braces.json --rules=histogram-privatize --apply -o %t.d/p2.cu 2>&1 | FileCheck %s --check-prefix=BRACES
// RUN: forge-port propose %t.d/p2.cu --spec %t.d/mod_ternary.json --rules=histogram-privatize --apply -o %t.d/p3.cu 2>&1 | FileCheck %s --check-prefix=TERNARY
// RUN: forge-port propose %t.d/p3.cu --spec %t.d/mod_negate.json --rules=histogram-privatize --apply -o %t.d/p4.cu 2>&1 | FileCheck %s --check-prefix=NEGATE
// RUN: forge-port propose %t.d/p4.cu --spec %t.d/mod_abs.json --rules=histogram-privatize --apply -o %t.d/p5.cu 2>&1 | FileCheck %s --check-prefix=ABS
// RUN: forge-port propose %t.d/p5.cu --spec %t.d/mod_unsigned.json --rules=histogram-privatize --apply -o %t.d/p6.cu 2>&1 | FileCheck %s --check-prefix=UNSIGNED
// RUN: forge-port propose %t.d/p6.cu --kernel const_fix --block 256 --rules=histogram-privatize --apply -o %t.d/p7.cu 2>&1 | FileCheck %s --check-prefix=CFIX
// RUN: forge-port propose %t.d/p7.cu --kernel const_twice --block 256 --rules=histogram-privatize --apply -o %t.d/p8.cu 2>&1 | FileCheck %s --check-prefix=CTWICE
// RUN: forge-port propose %t.d/p8.cu --kernel const_twice_parens --block 256 --rules=histogram-privatize --apply -o %t.d/p9.cu 2>&1 | FileCheck %s --check-prefix=CTWICEP
// RUN: forge-port propose %t.d/p9.cu --kernel const_wrap --block 256 --rules=histogram-privatize --apply -o %t.d/p10.cu 2>&1 | FileCheck %s --check-prefix=CWRAP
// RUN: FileCheck %s --check-prefix=FIX --input-file=%t.d/p10.cu
// RUN: %nvcc -arch=sm_90 -c %t.d/p10.cu -o %t.d/p10.o
// Refusals.
// RUN: not forge-port propose %s --spec %t.d/fix_alone.json --rules=histogram-privatize 2>&1 | FileCheck %s --check-prefix=ALONE
// RUN: not forge-port propose %s --spec %t.d/fix_le.json --rules=histogram-privatize 2>&1 | FileCheck %s --check-prefix=LE
// RUN: not forge-port propose %s --spec %t.d/fix_loop.json --rules=histogram-privatize 2>&1 | FileCheck %s --check-prefix=INLOOP
// RUN: not forge-port propose %s --spec %t.d/twice_param.json --rules=histogram-privatize 2>&1 | FileCheck %s --check-prefix=TWICEP
// RUN: not forge-port propose %s --kernel abs_any --block 256 --rules=histogram-privatize 2>&1 | FileCheck %s --check-prefix=ABSANY

__global__ void hist_mod(const int *keys, unsigned int *counts, int n, int nbins) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    int b = keys[i] % nbins;
    if (b < 0) b += nbins;
    atomicAdd(&counts[b], 1u);
  }
}
// HIST: applied expert:histogram-privatize: a private shared-memory copy of the nbins bins per block for atomicAdd(&counts[b], ...)
// HIST: spec: shared -> (NB) * 4

__global__ void mod_braces(const int *keys, unsigned int *counts, int n, int nbins) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    int b = keys[i] % nbins;
    if (b < 0) {
      b = b + nbins;
    }
    atomicAdd(&counts[b], 1u);
  }
}
// BRACES: applied expert:histogram-privatize: a private shared-memory copy of the nbins bins per block

__global__ void mod_ternary(const int *keys, unsigned int *counts, int n, int nbins) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  int b = keys[i] % nbins;
  b = b < 0 ? b + nbins : b;
  atomicAdd(&counts[b], 1u);
}
// TERNARY: applied expert:histogram-privatize: a private shared-memory copy of the nbins bins per block

// A mirror rather than a wrap: also in [0, nbins - 1].
__global__ void mod_negate(const int *keys, unsigned int *counts, int n, int nbins) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    int b = keys[i] % nbins;
    if (b < 0) b = -b;
    atomicAdd(&counts[b], 1u);
  }
}
// NEGATE: applied expert:histogram-privatize: a private shared-memory copy of the nbins bins per block

__global__ void mod_abs(const int *keys, unsigned int *counts, int n, int nbins) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicAdd(&counts[abs(keys[i] % nbins)], 1u);
}
// ABS: applied expert:histogram-privatize: a private shared-memory copy of the nbins bins per block

__global__ void mod_unsigned(const int *keys, unsigned int *counts, int n, int nbins) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicAdd(&counts[(unsigned)keys[i] % nbins], 1u);
}
// UNSIGNED: applied expert:histogram-privatize: a private shared-memory copy of the nbins bins per block

// A constant number of bins.
#define NB 100
__global__ void const_fix(const int *keys, unsigned int *counts, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    int b = keys[i] % NB;
    if (b < 0) b += NB;
    atomicAdd(&counts[b], 1u);
  }
}
// CFIX: applied expert:histogram-privatize: 32 lane copies of the 100 bins per block

__global__ void const_twice(const int *keys, unsigned int *counts, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicAdd(&counts[(keys[i] % NB + NB) % NB], 1u);
}
// CTWICE: applied expert:histogram-privatize: 32 lane copies of the 100 bins per block

__global__ void const_twice_parens(const int *keys, unsigned int *counts, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    int b = ((keys[i] % NB) + NB) % NB;
    atomicAdd(&counts[b], 1u);
  }
}
// CTWICEP: applied expert:histogram-privatize: 32 lane copies of the 100 bins per block

// A subtraction where the value is at least the bins.
__global__ void const_wrap(const int *keys, unsigned int *counts, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    int b = keys[i] & 127;
    if (b >= 64) b -= 64;
    atomicAdd(&counts[b], 1u);
  }
}
// CWRAP: applied expert:histogram-privatize: 32 lane copies of the 64 bins per block

// FIX-LABEL: __global__ void hist_mod(
// FIX: extern __shared__ unsigned int forge_hist_hist_mod[];
// FIX: for (int forge_j = forge_t; forge_j < (int)nbins; forge_j += forge_nt)
// FIX: if (b < 0) b += nbins;
// FIX: atomicAdd(&forge_hist_hist_mod[b], 1u);
// FIX-LABEL: __global__ void mod_braces(
// FIX: atomicAdd(&forge_hist_mod_braces[b], 1u);
// FIX-LABEL: __global__ void mod_ternary(
// FIX: atomicAdd(&forge_hist_mod_ternary[b], 1u);
// FIX-LABEL: __global__ void mod_negate(
// FIX: atomicAdd(&forge_hist_mod_negate[b], 1u);
// FIX-LABEL: __global__ void mod_abs(
// FIX: atomicAdd(&forge_hist_mod_abs[abs(forge_v0 % nbins)], 1u);
// FIX-LABEL: __global__ void mod_unsigned(
// FIX: atomicAdd(&forge_hist_mod_unsigned[(unsigned)forge_v0 % nbins], 1u);
// FIX-LABEL: __global__ void const_fix(
// FIX: __shared__ unsigned int forge_hist[100][32];
// FIX: atomicAdd(&forge_hist[b][forge_w], 1u);
// FIX-LABEL: __global__ void const_twice(
// FIX: atomicAdd(&forge_hist[(forge_v0 % NB + NB) % NB][forge_w], 1u);
// FIX-LABEL: __global__ void const_twice_parens(
// FIX: atomicAdd(&forge_hist[b][forge_w], 1u);
// FIX-LABEL: __global__ void const_wrap(
// FIX: __shared__ unsigned int forge_hist[64][32];
// FIX: atomicAdd(&forge_hist[b][forge_w], 1u);

// The correction without the remainder: a key of nbins or more stays.
__global__ void fix_alone(const int *keys, unsigned int *counts, int n, int nbins) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    int b = keys[i];
    if (b < 0) b += nbins;
    atomicAdd(&counts[b], 1u);
  }
}
// ALONE: not applicable: the bins index 'b' of 'atomicAdd(&counts[b], 1u)' is not bounded ({{.*}}); where the atomic runs it is in [nbins - 2147483648, 2147483647]: line {{[0-9]+}} sets 'b' to 'keys[i]', whose range is [-2147483648, 2147483647]{{$}}

// Under '<= 0' a remainder of 0 becomes nbins.
__global__ void fix_le(const int *keys, unsigned int *counts, int n, int nbins) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    int b = keys[i] % nbins;
    if (b <= 0) b += nbins;
    atomicAdd(&counts[b], 1u);
  }
}
// LE: not applicable: the bins index 'b' of 'atomicAdd(&counts[b], 1u)' is not bounded ({{.*}}); where the atomic runs it is in [1, nbins] (the launch sizes the bins by 'nbins': a clamp's ceiling is 'nbins - 1'){{$}}

// The range does not follow loops.
__global__ void fix_loop(const int *keys, unsigned int *counts, int n, int nbins) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    int b = keys[i] % nbins;
    while (b < 0)
      b += nbins;
    atomicAdd(&counts[b], 1u);
  }
}
// INLOOP: not applicable: the bins index 'b' of 'atomicAdd(&counts[b], 1u)' is not bounded ({{.*}}); where the atomic runs it is in [-2147483648, 2147483647]: 'b' is assigned in the loop at line {{[0-9]+}}{{$}}

// keys[i] % nbins + nbins overflows an int for nbins above 2^30 (and then
// the last remainder is negative): not taken as [0, nbins - 1].
__global__ void twice_param(const int *keys, unsigned int *counts, int n, int nbins) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicAdd(&counts[(keys[i] % nbins + nbins) % nbins], 1u);
}
// TWICEP: not applicable: the bins index '(keys[i] % nbins + nbins) % nbins' of 'atomicAdd(&counts[(keys[i] % nbins + nbins) % nbins], 1u)' is not bounded ({{.*}}); where the atomic runs it is in [-2147483646, nbins - 1]{{$}}

// abs(INT_MIN) is INT_MIN: the remainder of abs of any int may be negative.
__global__ void abs_any(const int *keys, unsigned int *counts, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicAdd(&counts[abs(keys[i]) % NB], 1u);
}
// ABSANY: not applicable: the bins index 'abs(keys[i]) % NB' of 'atomicAdd(&counts[abs(keys[i]) % NB], 1u)' is not bounded ({{.*}}); where the atomic runs it is in [-99, 99]{{$}}
