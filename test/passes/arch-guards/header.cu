// A guard in a project header is reported there; its fix is shown but not
// applied when porting this file (the header is shared).
// RUN: forge-port port --checks=arch-guards --to sm_90 --no-validate %s -o %t.cu -- %cuda_mock_flags \
// RUN:   2>&1 | FileCheck %s --implicit-check-not='{{warning|error}}:'
// RUN: diff %s %t.cu
#include "Inputs/guarded.cuh"
__global__ void k(int *x) { x[0] = pathId(); }
// CHECK: guarded.cuh:3:5: warning: '__CUDA_ARCH__ == 800' excludes later targets such as sm_90; use '__CUDA_ARCH__ >= 800' [arch-guards]
// CHECK: note: fix-its in '{{.*}}guarded.cuh' are not applied; port that file itself
// CHECK: 0 error(s), 1 warning(s) for sm_90; 0 fixed
