// REQUIRES: cuda
// The bins index bounded however the kernel spells it (Analysis/ValueRange.h):
// a clamp assigned with min(max()), a clamp written as two ifs, a guard on
// the operand of a difference ('c - 'a'' under 'c >= 'a' && c <= 'z''), and
// arithmetic of bounded loads (a joint histogram of two byte images). Each
// rewrite compiles; the rationale names the range.
// RUN: forge-port propose %s --kernel fbins --block 256 --rules=histogram-privatize 2>&1 | FileCheck %s --check-prefix=MINMAX
// RUN: forge-port propose %s --kernel fbins --block 256 --rules=histogram-privatize --apply -o %t1.cu
// RUN: forge-port propose %t1.cu --kernel ifclamp --block 256 --rules=histogram-privatize --apply -o %t2.cu 2>&1 | FileCheck %s --check-prefix=IFS
// RUN: forge-port propose %t2.cu --kernel letters --block 256 --rules=histogram-privatize --apply -o %t3.cu 2>&1 | FileCheck %s --check-prefix=CHARS
// RUN: forge-port propose %t3.cu --kernel joint --block 256 --rules=histogram-privatize --apply -o %t4.cu 2>&1 | FileCheck %s --check-prefix=JOINT
// RUN: FileCheck %s --check-prefix=FIX --input-file=%t4.cu
// RUN: %nvcc -arch=sm_90 -c %t4.cu -o %t4.o
// A remainder of a signed value may be negative: still refused.
// RUN: not forge-port propose %s --kernel signed_mod --block 256 --rules=histogram-privatize 2>&1 | FileCheck %s --check-prefix=NEG
// A clamp to a parameter number of bins, 'max(0, min(v, nbins - 1))' (the
// spec gives nbins), and the same clamp with a floor of -1, refused.
// RUN: forge-port propose %s --spec %S/Inputs/param-clamp.json --rules=histogram-privatize --apply -o %t5.cu 2>&1 | FileCheck %s --check-prefix=PARAM
// RUN: %nvcc -arch=sm_90 -c %t5.cu -o %t5.o
// RUN: not forge-port propose %s --spec %S/Inputs/param-clamp-neg.json --rules=histogram-privatize 2>&1 | FileCheck %s --check-prefix=PARAMNEG

#define NB 100
__global__ void fbins(const float *x, int *h, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    int b = (int)(x[i] * NB);
    b = min(max(b, 0), NB - 1);
    atomicAdd(&h[b], 1);
  }
}
// MINMAX: whose index 'b' is in [0, 100) by its value range [0, 99]

__global__ void ifclamp(const float *x, unsigned *h, int n, float lo, float hi) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int b = (int)((x[i] - lo) / (hi - lo) * 64);
  if (b < 0) b = 0;
  if (b > 63) b = 63;
  atomicAdd(h + b, 1u);
}
// IFS: applied expert:histogram-privatize: 32 lane copies of the 64 bins per block

__global__ void letters(const char *text, unsigned *freq, size_t len) {
  size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (i < len) {
    unsigned char c = text[i];
    if (c >= 'a' && c <= 'z')
      atomicAdd(&freq[c - 'a'], 1u);
  }
}
// CHARS: applied expert:histogram-privatize: 32 lane copies of the 26 bins per block

__global__ void joint(const unsigned char *a, const unsigned char *b, unsigned *j, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    atomicAdd(&j[(a[i] >> 4) * 16 + (b[i] >> 4)], 1u);
}
// JOINT: applied expert:histogram-privatize: 32 lane copies of the 256 bins per block

// FIX: __shared__ int forge_hist[100][32];
// FIX: atomicAdd(&forge_hist[b][forge_w], 1);
// FIX: __shared__ unsigned int forge_hist[64][32];
// FIX: atomicAdd(&forge_hist[b][forge_w], 1u);
// FIX: __shared__ unsigned int forge_hist[26][32];
// FIX: atomicAdd(&forge_hist[c - 'a'][forge_w], 1u);
// FIX: __shared__ unsigned int forge_hist[256][32];

__global__ void signed_mod(const int *v, unsigned *h, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicAdd(&h[v[i] % 64], 1u);
}
// NEG: not applicable: the bins index 'v[i] % 64' of 'atomicAdd(&h[v[i] % 64], 1u)' is not bounded

__global__ void param_clamp(const float *x, unsigned int *bins, int n, int nbins) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    const int b = max(0, min((int)(x[i] * nbins), nbins - 1));
    atomicAdd(&bins[b], 1u);
  }
}
// PARAM: applied expert:histogram-privatize: a private shared-memory copy of the nbins bins per block for atomicAdd(&bins[b], ...)

__global__ void param_clamp_neg(const float *x, unsigned int *bins, int n, int nbins) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    const int b = max(-1, min((int)(x[i] * nbins), nbins - 1));
    atomicAdd(&bins[b], 1u);
  }
}
// PARAMNEG: not applicable: the bins index 'b' of 'atomicAdd(&bins[b], 1u)' is not bounded
