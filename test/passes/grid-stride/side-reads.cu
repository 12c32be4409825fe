// REQUIRES: cuda
// A side read (the group's scale, at an index of its own from a buffer the
// map does not write) stays in the loop, at the element's own index, with
// the index's original type where it is used as a value.
// RUN: forge-port propose %S/../../gpu/Inputs/rules/mixed_maps.cu --kernel dequant_group --block 256 --rules=grid-stride --apply -o %t.cu 2>&1 | FileCheck %s --check-prefix=NOTE
// RUN: FileCheck %s --check-prefix=FIX --match-full-lines --input-file=%t.cu
// RUN: %nvcc -arch=sm_90 -c %t.cu -o %t.o
// NOTE: forge-port: note: applied expert:grid-stride: a grid-stride loop over 'i' instead of 'if (i < n)'
// FIX:      __global__ void dequant_group(const signed char *q, const float *scale, float *out, int n,
// FIX-NEXT:                               int group) {
// FIX-NEXT:   for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)blockDim.x * gridDim.x)
// FIX-NEXT:     out[i] = scale[((int)i) / group] * (float)q[i];
// FIX-NEXT: }
