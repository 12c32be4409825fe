// wgmma in a project header, reachable from a kernel of this file.
// REQUIRES: cuda
// RUN: not forge-port port --checks=arch-specific-instructions --to sm_100 --no-validate %s \
// RUN:   2>&1 | FileCheck %s --implicit-check-not='{{warning|error}}:'
#include "Inputs/hopper_mma.cuh"
__global__ void k() { fence(); }
// CHECK: hopper_mma.cuh:2:34: error: 'wgmma' is not available on sm_100; it assembles only for sm_90a (sm_100 has 'tcgen05' instead, which needs -arch=sm_100a or -arch=sm_100f) [arch-specific-instructions]
// CHECK: note: guard it with '#if defined(__CUDA_ARCH_FEAT_SM90_ALL)' or compile for sm_90a
// CHECK: hopper_mma.cuh:2:34: warning: 'wgmma' guarded so that the file builds for sm_100, where it traps [arch-specific-instructions]
// CHECK: hopper_mma.cuh:2:34: note: fix-it: guarded with '#if defined(__CUDA_ARCH_FEAT_SM90_ALL)'; the file has no portable path here{{.*}}
// CHECK: 1 error(s), 1 warning(s) for sm_100; 1 fixed
