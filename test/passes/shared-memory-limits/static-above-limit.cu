// 64 KB of static __shared__ memory is above the 48 KB static limit; 48 KB
// exactly is fine.
// RUN: not forge-port port --checks=shared-memory-limits --to sm_90 --no-validate %s -o %t.cu -- %cuda_mock_flags \
// RUN:   2>&1 | FileCheck %s --implicit-check-not='{{warning|error}}:'

__global__ void transpose(float *out, const float *in) {
  // CHECK: [[@LINE-1]]:17: error: kernel 'transpose' declares 69632 bytes of static shared memory, above the 49152-byte limit per block on sm_90; allocate it as dynamic shared memory (extern __shared__) and raise cudaFuncAttributeMaxDynamicSharedMemorySize [shared-memory-limits]
  __shared__ float tile[128][128];
  // CHECK: [[@LINE-1]]:20: note: largest __shared__ variable 'tile' takes 65536 bytes
  __shared__ int flags[1024];
  tile[threadIdx.y][threadIdx.x] = in[threadIdx.x];
  flags[threadIdx.x] = 1;
  out[threadIdx.x] = tile[threadIdx.x][threadIdx.y];
}

__global__ void fits(float *out) {
  __shared__ float tile[96][128];
  tile[threadIdx.y][threadIdx.x] = out[threadIdx.x];
}
