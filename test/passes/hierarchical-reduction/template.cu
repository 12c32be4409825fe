// REQUIRES: cuda
// A template pattern: the identity of a sum is T(0); a maximum over T has no
// identity that can be written for every T, so it is declined.
// RUN: forge-port propose %s --kernel tsum --block 256 --rules=hierarchical-reduction \
// RUN:   --apply -o %t.cu 2>&1 | FileCheck %s --check-prefix=NOTE
// RUN: FileCheck %s --check-prefix=FIX --match-full-lines --input-file=%t.cu
// RUN: %nvcc -arch=sm_90 -c %t.cu -o %t.o
// RUN: not forge-port propose %s --kernel tmax --block 256 --rules=hierarchical-reduction 2>&1 \
// RUN:   | FileCheck %s --check-prefix=MAX

template <typename T>
__global__ void tsum(const T *x, T *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(out, x[i]);
}
template __global__ void tsum<float>(const float *, float *, int);
template __global__ void tsum<double>(const double *, double *, int);
template __global__ void tsum<int>(const int *, int *, int);
// NOTE: forge-port: note: applied expert:hierarchical-reduction: one atomicAdd per block: {{.*}}
// FIX:      template <typename T>
// FIX-NEXT: __global__ void tsum(const T *x, T *out, int n) {
// FIX:        T partial = T(0);
// FIX:          if (i < n) partial += (T)x[i];
// FIX:            __shared__ T warp_partials[32];
// FIX:              partial = t < threads / 32u ? warp_partials[t] : T(0);

template <typename T>
__global__ void tmax(const T *x, T *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicMax(out, x[i]);
}
template __global__ void tmax<int>(const int *, int *, int);
// MAX: forge-port: note: hierarchical-reduction: not applicable: the identity of the maximum over 'T' cannot be written for every instantiation of the template
