// A legacy call in a project header is reported there. With -o FILE its
// fix-it is shown but not applied (-o FILE writes only the input's result);
// with -i it is applied to the header once, as the project's.
// RUN: rm -rf %t && mkdir -p %t/Inputs && cp %s %t/k.cu && cp %S/Inputs/warp_helpers.cuh %t/Inputs/
// RUN: forge-port port --checks=warp-sync-intrinsics --to sm_90 --no-validate %t/k.cu -o %t/out.cu -- %cuda_mock_flags \
// RUN:   > %t/o.log 2>&1 || true
// RUN: FileCheck %s --input-file=%t/o.log
// RUN: diff %s %t/out.cu
// RUN: diff %S/Inputs/warp_helpers.cuh %t/Inputs/warp_helpers.cuh
// RUN: forge-port port --checks=warp-sync-intrinsics --to sm_90 --no-validate %t/k.cu -i -- %cuda_mock_flags \
// RUN:   > %t/i.log 2>&1
// RUN: FileCheck %s --check-prefix=INPLACE --input-file=%t/i.log
// RUN: FileCheck %s --check-prefix=HEADER --input-file=%t/Inputs/warp_helpers.cuh
// RUN: diff %s %t/k.cu

#include "Inputs/warp_helpers.cuh"

__global__ void k(float *x) { x[0] = headerWarpMax(x[threadIdx.x]); }

// CHECK: warp_helpers.cuh:4:18: warning: '__shfl_down' was removed in CUDA 13; use '__shfl_down_sync' [warp-sync-intrinsics]
// CHECK: note: fix-its in '{{.*}}warp_helpers.cuh' are not applied: -o FILE writes only the input's result
// CHECK: 1 error(s) (0 from the passes, 1 from Clang's parse), 1 warning(s) for sm_90; 0 fixed

// INPLACE: warp_helpers.cuh:4:18: warning: '__shfl_down' was removed in CUDA 13
// INPLACE: note: fixes in '{{.*}}Inputs/warp_helpers.cuh' are applied for the project (rewritten in place)
// INPLACE: k.cu: 0 error(s), 1 warning(s) for sm_90; 1 fixed
// INPLACE: note: project file '{{.*}}Inputs/warp_helpers.cuh': 2 edit(s) from {{.*}}k.cu; written
// HEADER: __shfl_down_sync(0xffffffff,
