// Template kernels: static shared memory is summed per instantiation, and
// the inserted call names the kernel with its template arguments. (The host
// side is reported first, so the launches come before the kernel body.)
// RUN: not forge-port port --checks=shared-memory-limits --to sm_90 --no-validate %s -o %t.cu -- %cuda_mock_flags \
// RUN:   2>&1 | FileCheck %s --check-prefix=DIAG --implicit-check-not='{{warning|error}}:'
// RUN: FileCheck %s --check-prefix=FIX --match-full-lines --input-file=%t.cu
// RUN: %clang_cuda_mock -fsyntax-only %t.cu

template <int TILE> __global__ void tiled(float *out);

template <int N>
__global__ void dyn(float *out) {
  extern __shared__ float buf[];
  buf[threadIdx.x] = out[threadIdx.x] * N;
}

void run(float *out) {
  tiled<64><<<1, dim3(64, 64)>>>(out);
  tiled<128><<<1, dim3(32, 32)>>>(out);
  cudaFuncSetAttribute(dyn<2>, cudaFuncAttributeMaxDynamicSharedMemorySize, 128 * 1024);
  dyn<2><<<1, 128, 128 * 1024>>>(out);
  dyn<4><<<1, 128, 128 * 1024>>>(out);
  // DIAG: [[@LINE-1]]:3: warning: launch of 'dyn<4>' requests 131072 bytes of dynamic shared memory, above the 49152-byte default; call cudaFuncSetAttribute(dyn<4>, cudaFuncAttributeMaxDynamicSharedMemorySize, 131072) first [shared-memory-limits]
  // FIX:      cudaFuncSetAttribute(dyn<4>, cudaFuncAttributeMaxDynamicSharedMemorySize, 128 * 1024);
  // FIX-NEXT:   dyn<4><<<1, 128, 128 * 1024>>>(out);
}

template <int TILE>
__global__ void tiled(float *out) {
  // DIAG: [[@LINE-1]]:17: error: kernel 'tiled<128>' declares 65536 bytes of static shared memory, above the 49152-byte limit per block on sm_90; allocate it as dynamic shared memory (extern __shared__) and raise cudaFuncAttributeMaxDynamicSharedMemorySize [shared-memory-limits]
  __shared__ float tile[TILE][TILE];
  // DIAG: [[@LINE-1]]:20: note: largest __shared__ variable 'tile' takes 65536 bytes
  // DIAG: :19:3: note: 'tiled<128>' instantiated here
  tile[threadIdx.y][threadIdx.x] = out[threadIdx.x];
  out[threadIdx.x] = tile[threadIdx.x][threadIdx.y];
}
