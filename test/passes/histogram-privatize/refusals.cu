// REQUIRES: cuda
// Each precondition that fails says which, and nothing is proposed.
// RUN: not forge-port propose %s --kernel unbounded --block 256 --rules=histogram-privatize 2>&1 | FileCheck %s --check-prefix=UNB
// RUN: not forge-port propose %s --kernel old_value --block 256 --rules=histogram-privatize 2>&1 | FileCheck %s --check-prefix=OLD
// RUN: not forge-port propose %s --kernel too_big --block 256 --rules=histogram-privatize 2>&1 | FileCheck %s --check-prefix=BIG
// RUN: not forge-port propose %s --kernel mid_return --block 256 --rules=histogram-privatize 2>&1 | FileCheck %s --check-prefix=RET
// RUN: not forge-port propose %s --kernel reads_bins --block 256 --rules=histogram-privatize 2>&1 | FileCheck %s --check-prefix=READ
// RUN: not forge-port propose %s --kernel two --block 256 --rules=histogram-privatize 2>&1 | FileCheck %s --check-prefix=TWO
// UNB: histogram-privatize: not applicable: the bins index 'data[i]' of 'atomicAdd(&bins[data[i]], 1)' is not bounded
// OLD: histogram-privatize: not applicable: the kernel uses the value 'atomicAdd(&bins[data[i]], 1)' returns (line {{[0-9]+}}), the old bin, which a private copy changes
// BIG: histogram-privatize: not applicable: the bins index 'data[i]' is bounded by the type 'unsigned short' (65536 bins); 65536 x 4 B = 262144 B exceeds the 49152 B of shared memory a block gets without opting in
// RET: histogram-privatize: not applicable: the 'return' at line {{[0-9]+}} would skip the block's barriers
// READ: histogram-privatize: not applicable: the kernel also reads 'bins[0]' (line {{[0-9]+}})
// TWO: histogram-privatize: not applicable: the kernel makes 2 atomics at data-dependent addresses

__global__ void unbounded(const int *data, int *bins, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicAdd(&bins[data[i]], 1);
}

__global__ void old_value(const unsigned char *data, int *bins, int *slot, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    slot[i] = atomicAdd(&bins[data[i]], 1);
}

__global__ void too_big(const unsigned short *data, unsigned *bins, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicAdd(&bins[data[i]], 1u);
}

__global__ void mid_return(const unsigned char *data, unsigned *bins, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    if (data[i] == 0) return;
    atomicAdd(&bins[data[i]], 1u);
  }
}

__global__ void reads_bins(const unsigned char *data, unsigned *bins, unsigned *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicAdd(&bins[data[i]], 1u);
  if (i == 0)
    out[0] = bins[0];
}

__global__ void two(const unsigned char *a, const unsigned char *b, unsigned *ha, unsigned *hb, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    atomicAdd(&ha[a[i]], 1u);
    atomicAdd(&hb[b[i]], 1u);
  }
}
