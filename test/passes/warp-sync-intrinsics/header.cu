// A legacy call in a project header is reported there; its fix-it is shown
// but not applied when porting this file (the header is shared).
// RUN: forge-port port --checks=warp-sync-intrinsics --to sm_90 --no-validate %s -o %t.cu -- %cuda_mock_flags \
// RUN:   > %t.log 2>&1 || true
// RUN: FileCheck %s --input-file=%t.log
// RUN: diff %s %t.cu

#include "Inputs/warp_helpers.cuh"

__global__ void k(float *x) { x[0] = headerWarpMax(x[threadIdx.x]); }

// CHECK: warp_helpers.cuh:4:18: warning: '__shfl_down' was removed in CUDA 13; use '__shfl_down_sync' [warp-sync-intrinsics]
// CHECK: note: fix-its in '{{.*}}warp_helpers.cuh' are not applied; port that file itself
// CHECK: 1 error(s) (0 from the passes, 1 from Clang's parse), 1 warning(s) for sm_90; 0 fixed
