// REQUIRES: cuda
// Bins the kernel already keeps in a __shared__ array (the textbook
// histogram, "CUDA by Example" ch. 9): zeroed before a barrier, counted by
// atomicAdd at data-dependent addresses, flushed after a barrier. Only the
// counting statement is rewritten: 16-byte loads of the keys and lane
// copies laid out [bin][copy], summed into the kernel's bins behind a
// barrier of their own, so the kernel's zeroing and flush stay as written.
// Spellings: a for loop with the stride in a local, the book's while loop
// over a 'long' size with 'temp[threadIdx.x] = 0', bins zeroed under 'if
// (threadIdx.x < 256)', 64 bins of int keys '% 64' made non-negative,
// 1024 bins (8 copies fit beside the kernel's 4 KiB), char keys, one key
// per thread under 'if (i < n)', and a histogram per block (lane copies
// only: the 16-byte loop would give blocks other elements). The rewrites
// are applied one after the other and compiled once.
// RUN: rm -rf %t.d && mkdir -p %t.d
// RUN: forge-port propose %s --kernel gs_for --block 256 --rules=histogram-privatize --apply -o %t.d/p1.cu 2>&1 | FileCheck %s --check-prefix=GS
// RUN: forge-port propose %t.d/p1.cu --kernel book_while --block 256 --rules=histogram-privatize --apply -o %t.d/p2.cu 2>&1 | FileCheck %s --check-prefix=BOOK
// RUN: forge-port propose %t.d/p2.cu --kernel guarded_zero --block 512 --rules=histogram-privatize --apply -o %t.d/p3.cu 2>&1 | FileCheck %s --check-prefix=GUARDED
// RUN: forge-port propose %t.d/p3.cu --kernel int_mod64 --block 256 --rules=histogram-privatize --apply -o %t.d/p4.cu 2>&1 | FileCheck %s --check-prefix=MOD64
// RUN: forge-port propose %t.d/p4.cu --kernel bins1024 --block 256 --rules=histogram-privatize --apply -o %t.d/p5.cu 2>&1 | FileCheck %s --check-prefix=B1024
// RUN: forge-port propose %t.d/p5.cu --kernel char_keys --block 256 --rules=histogram-privatize --apply -o %t.d/p6.cu 2>&1 | FileCheck %s --check-prefix=CHAR
// RUN: forge-port propose %t.d/p6.cu --kernel one_per_thread --block 256 --rules=histogram-privatize --apply -o %t.d/p7.cu 2>&1 | FileCheck %s --check-prefix=ONE
// RUN: forge-port propose %t.d/p7.cu --kernel per_block --block 256 --rules=histogram-privatize --apply -o %t.d/p8.cu 2>&1 | FileCheck %s --check-prefix=PERBLOCK
// RUN: FileCheck %s --check-prefix=FIX --input-file=%t.d/p8.cu
// RUN: %nvcc -arch=sm_90 -c %t.d/p8.cu -o %t.d/p8.o
// The second proposal counts into the kernel's own bins, in 16-byte loads.
// RUN: forge-port propose %s --kernel gs_for --block 256 --rules=histogram-privatize 2>&1 | FileCheck %s --check-prefix=SECOND
// RUN: forge-port propose %s --kernel per_block --block 256 --rules=histogram-privatize 2>&1 | FileCheck %s --check-prefix=PBWHY
// Refusals.
// RUN: not forge-port propose %s --kernel exch --block 256 --rules=histogram-privatize 2>&1 | FileCheck %s --check-prefix=EXCH
// RUN: not forge-port propose %s --kernel reads_during --block 256 --rules=histogram-privatize 2>&1 | FileCheck %s --check-prefix=READS
// RUN: not forge-port propose %s --kernel param_bins --block 256 --rules=histogram-privatize 2>&1 | FileCheck %s --check-prefix=PARAM
// RUN: not forge-port propose %s --kernel unbounded --block 256 --rules=histogram-privatize 2>&1 | FileCheck %s --check-prefix=UNBOUNDED
// RUN: not forge-port propose %s --kernel partial_flush --block 256 --rules=histogram-privatize 2>&1 | FileCheck %s --check-prefix=PARTIAL
// RUN: not forge-port propose %s --kernel book_while --block 128 --rules=histogram-privatize 2>&1 | FileCheck %s --check-prefix=NARROW
// RUN: not forge-port propose %s --kernel extern_bins --block 256 --rules=histogram-privatize 2>&1 | FileCheck %s --check-prefix=EXTERN
// RUN: not forge-port propose %s --kernel per_block_one --block 256 --rules=histogram-privatize 2>&1 | FileCheck %s --check-prefix=ONEPB
// RUN: not forge-port propose %s --kernel wide_index --block 256 --rules=histogram-privatize 2>&1 | FileCheck %s --check-prefix=WIDE

__global__ void gs_for(const unsigned char *data, unsigned int *hist, int n) {
  __shared__ unsigned int local[256];
  for (int b = threadIdx.x; b < 256; b += blockDim.x)
    local[b] = 0;
  __syncthreads();
  const int stride = blockDim.x * gridDim.x;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
    atomicAdd(&local[data[i]], 1u);
  __syncthreads();
  for (int b = threadIdx.x; b < 256; b += blockDim.x)
    atomicAdd(&hist[b], local[b]);
}
// GS: applied expert:histogram-privatize: 32 lane copies of the 256 bins per block, laid out [bin][copy] (lane l counts into copy l % 32) for atomicAdd(&local[data[i]], ...), reading 'data' (unsigned char) in 16-byte loads (16 elements per thread per iteration)
// FIX-LABEL: void gs_for(
// FIX:        __shared__ unsigned int local[256];
// FIX-NEXT:   for (int b = threadIdx.x; b < 256; b += blockDim.x)
// FIX-NEXT:     local[b] = 0;
// FIX-NEXT:   __syncthreads();
// FIX-NEXT:   const int stride = blockDim.x * gridDim.x;
// FIX-NEXT:   __shared__ unsigned int forge_hist[256][32];
// FIX:        const int forge_w = forge_t % 32;
// FIX-NEXT:   __syncthreads();
// FIX-NEXT:   {
// FIX-NEXT:     auto forge_e = [&](unsigned char forge_v0) {atomicAdd(&forge_hist[forge_v0][forge_w], 1u); };
// FIX:          const uint4 forge_q0_0 = reinterpret_cast<const uint4 *>(data + forge_h)[forge_k];
// FIX:          for (long long forge_i = forge_h + forge_m * 16 + forge_g; forge_i < forge_n; forge_i += forge_s)
// FIX-NEXT:       forge_e(data[forge_i]);
// FIX-NEXT:   }
// FIX-NEXT:   __syncthreads();
// FIX-NEXT:   for (int forge_j = forge_t; forge_j < 256; forge_j += forge_nt) {
// FIX-NEXT:     unsigned int forge_c = forge_hist[forge_j][forge_j % 32];
// FIX-NEXT:     for (int forge_r = 1; forge_r < 32; ++forge_r)
// FIX-NEXT:       forge_c = forge_c + forge_hist[forge_j][(forge_j + forge_r) % 32];
// FIX-NEXT:     local[forge_j] += forge_c;
// FIX-NEXT:   }
// FIX-NEXT:   __syncthreads();
// FIX-NEXT:   for (int b = threadIdx.x; b < 256; b += blockDim.x)
// FIX-NEXT:     atomicAdd(&hist[b], local[b]);
// SECOND: # expert:histogram-privatize: 32 lane copies
// SECOND: # expert:histogram-privatize: the counting into 'local' (256 bins) for atomicAdd(&local[data[i]], ...), reading 'data' (unsigned char) in 16-byte loads (16 elements per thread per iteration)
// SECOND-NOT: forge_hist
// SECOND: auto forge_e = [&](unsigned char forge_v0) {atomicAdd(&local[forge_v0], 1u); };
// SECOND-NOT: # expert:histogram-privatize

// "CUDA by Example", ch. 9: one bin per thread (a block of 256), a while
// loop over a 'long' size.
__global__ void book_while(unsigned char *buffer, long size, unsigned int *histo) {
  __shared__ unsigned int temp[256];
  temp[threadIdx.x] = 0;
  __syncthreads();
  int i = threadIdx.x + blockIdx.x * blockDim.x;
  int offset = blockDim.x * gridDim.x;
  while (i < size) {
    atomicAdd(&temp[buffer[i]], 1);
    i += offset;
  }
  __syncthreads();
  atomicAdd(&(histo[threadIdx.x]), temp[threadIdx.x]);
}
// BOOK: applied expert:histogram-privatize: 32 lane copies of the 256 bins per block, laid out [bin][copy] (lane l counts into copy l % 32) for atomicAdd(&temp[buffer[i]], ...), reading 'buffer' (unsigned char) in 16-byte loads (16 elements per thread per iteration)
// FIX-LABEL: void book_while(
// FIX:        temp[threadIdx.x] = 0;
// FIX-NEXT:   __syncthreads();
// FIX-NEXT:   __shared__ unsigned int forge_hist[256][32];
// FIX:          auto forge_e = [&](unsigned char forge_v0) {
// FIX-NEXT:       atomicAdd(&forge_hist[forge_v0][forge_w], 1);
// FIX:          const long long forge_n = size;
// FIX:        temp[forge_j] += forge_c;
// FIX-NEXT:   }
// FIX-NEXT:   __syncthreads();
// FIX-NEXT:   atomicAdd(&(histo[threadIdx.x]), temp[threadIdx.x]);
// A block of 128 leaves half the bins unzeroed and unflushed.
// NARROW: histogram-privatize: not applicable: the bins are in shared memory already ('temp'), but the zeroing 'temp[threadIdx.x]' (line {{[0-9]+}}) does not reach every bin of 'temp' (256): the block's 128 threads reach bins [0, 128) of the 256

__global__ void guarded_zero(const unsigned char *data, unsigned int *hist, int n) {
  __shared__ unsigned int bins[256];
  if (threadIdx.x < 256)
    bins[threadIdx.x] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    atomicAdd(&bins[data[i]], 1u);
  __syncthreads();
  if (threadIdx.x < 256)
    atomicAdd(&hist[threadIdx.x], bins[threadIdx.x]);
}
// GUARDED: applied expert:histogram-privatize: 32 lane copies of the 256 bins per block, {{.*}} in 16-byte loads (16 elements per thread per iteration)
// FIX-LABEL: void guarded_zero(
// FIX:        bins[forge_j] += forge_c;

__global__ void int_mod64(const int *keys, int *hist, int n) {
  __shared__ int h[64];
  for (int b = threadIdx.x; b < 64; b += blockDim.x)
    h[b] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    int b = keys[i] % 64;
    if (b < 0)
      b += 64;
    atomicAdd(&h[b], 1);
  }
  __syncthreads();
  for (int b = threadIdx.x; b < 64; b += blockDim.x)
    atomicAdd(&hist[b], h[b]);
}
// MOD64: applied expert:histogram-privatize: 32 lane copies of the 64 bins per block, {{.*}}reading 'keys' (int) in 16-byte loads (4 elements per thread per iteration)
// FIX-LABEL: void int_mod64(
// FIX:        __shared__ int forge_hist[64][32];
// FIX:        atomicAdd(&forge_hist[b][forge_w], 1);
// FIX:        h[forge_j] += forge_c;

// 1024 bins: 8 copies (32 KiB) fit beside the kernel's own 4 KiB.
__global__ void bins1024(const unsigned short *keys, unsigned int *hist, int n) {
  __shared__ unsigned int s[1024];
  for (int b = threadIdx.x; b < 1024; b += blockDim.x)
    s[b] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    atomicAdd(&s[keys[i] >> 6], 1u);
  __syncthreads();
  for (int b = threadIdx.x; b < 1024; b += blockDim.x)
    atomicAdd(&hist[b], s[b]);
}
// B1024: applied expert:histogram-privatize: 8 lane copies of the 1024 bins per block, {{.*}}reading 'keys' (unsigned short) in 16-byte loads (8 elements per thread per iteration)
// FIX-LABEL: void bins1024(
// FIX:        __shared__ unsigned int forge_hist[1024][8];

__global__ void char_keys(const char *text, unsigned int *freq, int n) {
  __shared__ unsigned int counts[256];
  for (int b = threadIdx.x; b < 256; b += blockDim.x)
    counts[b] = 0;
  __syncthreads();
  int stride = blockDim.x * gridDim.x;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
    atomicAdd(&counts[(unsigned char)text[i]], 1u);
  __syncthreads();
  for (int b = threadIdx.x; b < 256; b += blockDim.x)
    atomicAdd(&freq[b], counts[b]);
}
// CHAR: applied expert:histogram-privatize: 32 lane copies of the 256 bins per block, {{.*}}reading 'text' (char) in 16-byte loads (16 elements per thread per iteration)
// FIX-LABEL: void char_keys(
// FIX:        auto forge_e = [&](char forge_v0) {atomicAdd(&forge_hist[(unsigned char)forge_v0][forge_w], 1u); };

__global__ void one_per_thread(const unsigned char *data, unsigned int *hist, int n) {
  __shared__ unsigned int local[256];
  local[threadIdx.x] = 0;
  __syncthreads();
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicAdd(&local[data[i]], 1u);
  __syncthreads();
  atomicAdd(&hist[threadIdx.x], local[threadIdx.x]);
}
// ONE: applied expert:histogram-privatize: 32 lane copies of the 256 bins per block, {{.*}}reading 'data' (unsigned char) in 16-byte loads (16 elements per thread per iteration)
// FIX-LABEL: void one_per_thread(
// FIX-NOT:    int i =
// FIX:        const long long forge_n = n;
// FIX:        local[forge_j] += forge_c;

// A histogram per block: the lane copies keep each block's elements, and
// the grid stays.
__global__ void per_block(const unsigned char *data, unsigned int *partial, int n) {
  __shared__ unsigned int local[256];
  for (int b = threadIdx.x; b < 256; b += blockDim.x)
    local[b] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    atomicAdd(&local[data[i]], 1u);
  __syncthreads();
  for (int b = threadIdx.x; b < 256; b += blockDim.x)
    partial[blockIdx.x * 256 + b] = local[b];
}
// PERBLOCK: applied expert:histogram-privatize: 32 lane copies of the 256 bins per block, laid out [bin][copy] (lane l counts into copy l % 32) for atomicAdd(&local[data[i]], ...){{$}}
// PBWHY: The grid stays as it is: the flush 'partial[blockIdx.x * 256 + b]' writes a histogram per block.
// PBWHY: No 16-byte loads: the flush 'partial[blockIdx.x * 256 + b]' writes a histogram per block
// FIX-LABEL: void per_block(
// FIX:          atomicAdd(&forge_hist[data[i]][forge_w], 1u);
// FIX:        local[forge_j] += forge_c;
// FIX:        partial[blockIdx.x * 256 + b] = local[b];

// One element per thread into a histogram per block: 32 copies would cost
// more than the block's 256 atomics.
__global__ void per_block_one(const unsigned char *data, unsigned int *partial, int n) {
  __shared__ unsigned int local[256];
  local[threadIdx.x] = 0;
  __syncthreads();
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicAdd(&local[data[i]], 1u);
  __syncthreads();
  partial[blockIdx.x * 256 + threadIdx.x] = local[threadIdx.x];
}
// ONEPB: not applicable: the bins are in shared memory already ('local'), each thread counts one element, and 16-byte loads do not apply (the flush 'partial[blockIdx.x * 256 + threadIdx.x]' writes a histogram per block, {{.*}}): zeroing and summing 32 copies of the 256 bins would cost more than the block's own atomics

__global__ void exch(const unsigned char *data, unsigned int *last, int n) {
  __shared__ unsigned int local[256];
  local[threadIdx.x] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    atomicExch(&local[data[i]], (unsigned)i);
  __syncthreads();
  atomicMax(&last[threadIdx.x], local[threadIdx.x]);
}
// EXCH: not applicable: the bins are in shared memory already ('local'), but 'atomicExch(&local[data[i]], (unsigned)i)' (line {{[0-9]+}}) is not an atomicAdd: lane copies of the bins are summed, which only a commutative add of counts allows

__global__ void reads_during(const unsigned char *data, unsigned int *hist, int n) {
  __shared__ unsigned int local[256];
  local[threadIdx.x] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    if (local[data[i]] < 1000)
      atomicAdd(&local[data[i]], 1u);
  __syncthreads();
  atomicAdd(&hist[threadIdx.x], local[threadIdx.x]);
}
// READS: not applicable: the bins are in shared memory already ('local'), but the kernel reads 'local[data[i]]' (line {{[0-9]+}}) while it counts (between the barriers at lines {{[0-9]+}} and {{[0-9]+}}); the bins are only complete after the second

__global__ void param_bins(const int *keys, unsigned int *hist, int n, int nbins) {
  __shared__ unsigned int local[1024];
  for (int b = threadIdx.x; b < 1024; b += blockDim.x)
    local[b] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    atomicAdd(&local[(unsigned)keys[i] % nbins], 1u);
  __syncthreads();
  for (int b = threadIdx.x; b < 1024; b += blockDim.x)
    atomicAdd(&hist[b], local[b]);
}
// PARAM: not applicable: the bins index '(unsigned)keys[i] % nbins' of 'atomicAdd(&local[(unsigned)keys[i] % nbins], 1u)' is bounded by 'nbins' (from '% nbins'), a kernel parameter; lane copies of 'local' need a constant number of bins

__global__ void unbounded(const int *keys, unsigned int *hist, int n) {
  __shared__ unsigned int local[256];
  local[threadIdx.x] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    atomicAdd(&local[keys[i]], 1u);
  __syncthreads();
  atomicAdd(&hist[threadIdx.x], local[threadIdx.x]);
}
// UNBOUNDED: not applicable: the bins index 'keys[i]' of 'atomicAdd(&local[keys[i]], 1u)' is not bounded

__global__ void partial_flush(const unsigned char *data, unsigned int *hist, int n) {
  __shared__ unsigned int local[256];
  for (int b = threadIdx.x; b < 256; b += blockDim.x)
    local[b] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    atomicAdd(&local[data[i]], 1u);
  __syncthreads();
  for (int b = threadIdx.x; b < 128; b += blockDim.x)
    atomicAdd(&hist[b], local[b]);
}
// PARTIAL: not applicable: the bins are in shared memory already ('local'), but the flush 'atomicAdd(&hist[b], local[b])' (line {{[0-9]+}}) does not add every bin of 'local' (256) once: its loop reaches bins [0, 128) of the 256

__global__ void extern_bins(const unsigned char *data, unsigned int *hist, int n) {
  extern __shared__ unsigned int dyn[];
  dyn[threadIdx.x] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    atomicAdd(&dyn[data[i]], 1u);
  __syncthreads();
  atomicAdd(&hist[threadIdx.x], dyn[threadIdx.x]);
}
// EXTERN: not applicable: the bins are in shared memory already ('dyn'), but the shared bins 'dyn' are not a one-dimensional __shared__ array of a constant size, so the number of bins is not known

__global__ void wide_index(const unsigned short *keys, unsigned int *hist, int n) {
  __shared__ unsigned int local[256];
  local[threadIdx.x] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    atomicAdd(&local[keys[i] >> 4], 1u);
  __syncthreads();
  atomicAdd(&hist[threadIdx.x], local[threadIdx.x]);
}
// WIDE: not applicable: the bins index 'keys[i] >> 4' of 'atomicAdd(&local[keys[i] >> 4], 1u)' is bounded by the type 'unsigned short' shifted right by 4 (4096 bins), more than the 256 of 'local'
