// End to end against the real CUDA 13 headers: the ballot mask the pass
// inserts compiles with nvcc.
// REQUIRES: cuda
// RUN: forge-port port --checks=warp-sync-intrinsics --to sm_100 --no-validate %s -o %t.cu 2>&1 | FileCheck %s
// RUN: FileCheck %s --check-prefix=FIX --match-full-lines --input-file=%t.cu
// RUN: %nvcc -arch=sm_100 -c %t.cu -o %t.o

#include <cuda_runtime.h>

__global__ void eightLanes(int *x) {
  int lane = threadIdx.x % 32;
  int v = x[threadIdx.x];
  if (lane < 8)
    v += __shfl_down(v, 4);
  // CHECK: [[@LINE-1]]:10: warning: '__shfl_down' was removed in CUDA 13; use '__shfl_down_sync' [warp-sync-intrinsics]
  // CHECK: [[@LINE-3]]:3: note: the lanes that reach the call are those for which 'lane < 8' is true{{.*}}
  // FIX: unsigned forge_mask = __ballot_sync(0xffffffff, lane < 8);
  // FIX-NEXT: if (lane < 8)
  // FIX-NEXT: v += __shfl_down_sync(forge_mask, v, 4);
  x[threadIdx.x] = v;
}
// CHECK: 1 warning(s) for sm_100; 1 fixed
