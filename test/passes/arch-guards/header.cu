// A guard in a project header is reported there. With -o FILE its fix is
// shown but not applied (-o FILE writes only the input's result); with
// --diff the header's fix is in the diff, and the input is unchanged.
// RUN: rm -rf %t && mkdir -p %t/Inputs && cp %s %t/k.cu && cp %S/Inputs/guarded.cuh %t/Inputs/
// RUN: forge-port port --checks=arch-guards --to sm_90 --no-validate %t/k.cu -o %t/out.cu -- %cuda_mock_flags \
// RUN:   2>&1 | FileCheck %s --implicit-check-not='{{warning|error}}:'
// RUN: diff %s %t/out.cu
// RUN: cd %t && forge-port port --checks=arch-guards --to sm_90 --no-validate k.cu --diff -- %cuda_mock_flags \
// RUN:   2>/dev/null | FileCheck %s --check-prefix=DIFF
#include "Inputs/guarded.cuh"
__global__ void k(int *x) { x[0] = pathId(); }
// CHECK: guarded.cuh:3:5: warning: '__CUDA_ARCH__ == 800' excludes later targets such as sm_90; use '__CUDA_ARCH__ >= 800' [arch-guards]
// CHECK: note: fix-its in '{{.*}}guarded.cuh' are not applied: -o FILE writes only
// CHECK: 0 error(s), 1 warning(s) for sm_90; 0 fixed

// DIFF: --- a/Inputs/guarded.cuh
// DIFF: +++ b/Inputs/guarded.cuh
// DIFF: -#if __CUDA_ARCH__ == 800
// DIFF: +#if __CUDA_ARCH__ >= 800
