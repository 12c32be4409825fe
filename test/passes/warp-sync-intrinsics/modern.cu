// Already-modern code: nothing to report, and the output is the input.
// RUN: forge-port port --checks=warp-sync-intrinsics --to sm_90 --no-validate %s -o %t.cu -- %cuda_mock_flags \
// RUN:   2>&1 | FileCheck %s --implicit-check-not='{{warning|error}}:'
// RUN: diff %s %t.cu
// CHECK: 0 error(s), 0 warning(s) for sm_90; 0 fixed

__device__ float warpSum(float v) {
  for (int offset = 16; offset > 0; offset /= 2)
    v += __shfl_down_sync(0xffffffff, v, offset);
  return v;
}

// A user function whose name starts like an intrinsic is not one.
__device__ int __shfl_count(int v) { return v; }
__global__ void k(float *x) { x[0] = warpSum(x[threadIdx.x]) + __shfl_count(1); }
