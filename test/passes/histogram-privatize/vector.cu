// REQUIRES: cuda
// The 16-byte path on histograms in other styles: one element per thread
// under 'if (i < n)' (the guard becomes a grid-stride loop over the same
// elements, so the grid is capped), 16-bit keys into 1024 bins after an
// early exit (8 keys per load), and weighted float bins (16 byte keys with
// 16 float weights: one uint4 of keys, four of weights, the weights' own
// alignment checked at run time). Each result compiles with nvcc.
// RUN: forge-port propose %s --kernel per_thread --block 256 --rules=histogram-privatize --apply -o %t1.cu 2>&1 | FileCheck %s --check-prefix=PT
// RUN: FileCheck %s --check-prefix=PTFIX --input-file=%t1.cu
// RUN: %nvcc -arch=sm_90 -ptx %t1.cu -o - | FileCheck %s --check-prefix=PTX
// RUN: forge-port propose %s --kernel keys16 --block 256 --rules=histogram-privatize --apply -o %t2.cu 2>&1 | FileCheck %s --check-prefix=K16
// RUN: FileCheck %s --check-prefix=K16FIX --input-file=%t2.cu
// RUN: %nvcc -arch=sm_90 -ptx %t2.cu -o - | FileCheck %s --check-prefix=PTX
// RUN: forge-port propose %s --kernel weighted --block 256 --rules=histogram-privatize --apply -o %t3.cu 2>&1 | FileCheck %s --check-prefix=W
// RUN: FileCheck %s --check-prefix=WFIX --input-file=%t3.cu
// RUN: %nvcc -arch=sm_90 -ptx %t3.cu -o - | FileCheck %s --check-prefix=PTX
// RUN: forge-port propose %s --kernel ints --block 256 --rules=histogram-privatize 2>&1 | FileCheck %s --check-prefix=INT

__global__ void per_thread(const unsigned char *in, unsigned int *hist, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicAdd(&hist[in[i]], 1u);
}
// PT: applied expert:histogram-privatize: 32 lane copies of the 256 bins per block, laid out [bin][copy] (lane l counts into copy l % 32) for atomicAdd(&hist[in[i]], ...), reading 'in' (unsigned char) in 16-byte loads (16 elements per thread per iteration)
// PTFIX-NOT: int i =
// PTFIX:     auto forge_e = [&](unsigned char forge_v0) {atomicAdd(&forge_hist[forge_v0][forge_w], 1u); };
// PTFIX-NEXT:     const long long forge_n = n;
// PTFIX:     for (long long forge_k = forge_g; forge_k < forge_m; forge_k += forge_s) {
// PTFIX-NEXT:       const uint4 forge_q0_0 = reinterpret_cast<const uint4 *>(in + forge_h)[forge_k];

__global__ void keys16(const unsigned short *keys, unsigned int *bins, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  unsigned short k = keys[i];
  atomicAdd(&bins[k >> 6], 1u);
}
// K16: applied expert:histogram-privatize: 8 lane copies of the 1024 bins per block, laid out [bin][copy] (lane l counts into copy l % 8) for atomicAdd(&bins[k >> 6], ...), reading 'keys' (unsigned short) in 16-byte loads (8 elements per thread per iteration)
// K16FIX-NOT: if (!(i >= n))
// K16FIX:     auto forge_e = [&](unsigned short forge_v0) {
// K16FIX-NEXT:   unsigned short k = forge_v0;
// K16FIX-NEXT:   atomicAdd(&forge_hist[k >> 6][forge_w], 1u);
// K16FIX:     long long forge_h = (long long)((16 - ((unsigned long long)keys & 15)) & 15) / 2;
// K16FIX:     long long forge_m = (forge_n - forge_h) / 8;
// K16FIX:       forge_e((unsigned short)(forge_q0_0.w >> 16));
// K16FIX-NEXT:     }
// K16FIX-NEXT:     for (long long forge_i = forge_h + forge_m * 8 + forge_g; forge_i < forge_n; forge_i += forge_s)

__global__ void weighted(const unsigned char *key, const float *w, float *h, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicAdd(&h[key[i]], w[i]);
}
// W: applied expert:histogram-privatize: 32 lane copies of the 256 bins per block, laid out [bin][copy] (lane l counts into copy l % 32) for atomicAdd(&h[key[i]], ...), reading 'key' (unsigned char), 'w' (float) in 16-byte loads (16 elements per thread per iteration)
// WFIX:     if (forge_m < 0 || ((unsigned long long)(w + forge_h) & 15) != 0)
// WFIX:       const uint4 forge_q1_3 = reinterpret_cast<const uint4 *>(w + forge_h)[forge_k * 4 + 3];
// WFIX:       forge_e((unsigned char)(forge_q0_0.w >> 24), __uint_as_float(forge_q1_3.w));

// The keys come in 16-byte loads; the counting is in shared memory.
// PTX: ld.global.v4.u32
// PTX: atom.shared.add

__global__ void ints(const int *data, int *h, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    atomicAdd(&h[data[i] & 255], 1);
}
// 4-byte keys come in 16-byte loads too: four per thread per iteration
// (one word in flight per thread left the naive float histogram at 54 % of
// the DRAM roofline).
// INT: # expert:histogram-privatize: 32 lane copies of the 256 bins per block, laid out [bin][copy] (lane l counts into copy l % 32) for atomicAdd(&h[data[i] & 255], ...), reading 'data' (int) in 16-byte loads (4 elements per thread per iteration)
// INT: # expert:histogram-privatize: a private shared-memory copy of the 256 bins per block for atomicAdd(&h[data[i] & 255], ...){{$}}
