// REQUIRES: cuda
// A kernel template: the pattern's parameters get the words; a typedef'd
// pointer type is left alone. No launch in the file: the user promises.
// RUN: forge-port propose %s --kernel ns::axpy --rules=restrict --assume-no-alias 2>&1 | FileCheck %s
// RUN: forge-port propose %s --kernel ns::axpy --rules=restrict --assume-no-alias --apply -o %t.cu 2>/dev/null
// RUN: %nvcc -arch=sm_90 -ptx %t.cu -o - | FileCheck %s --check-prefix=PTX

typedef float *FloatPtr;
namespace ns {
template <typename T, int B>
__global__ void axpy(T a, const T *x, FloatPtr y, int n) {
  int i = blockIdx.x * B + threadIdx.x;
  if (i < n)
    y[i] = a * x[i] + y[i];
}
template __global__ void axpy<float, 128>(float, const float *, FloatPtr, int);
} // namespace ns

// CHECK: # expert:restrict: __restrict__ on x
// CHECK: Left alone: 'y' (a use the analysis cannot follow, or a typedef'd pointer type).
// CHECK: No const added: explicit instantiations name the parameter types.
// CHECK: <<<<<<< SEARCH
// CHECK-NEXT: {{^}}__global__ void axpy(T a, const T *x, {{FloatPtr}} y, int n) {
// CHECK-NEXT: =======
// CHECK-NEXT: {{^}}__global__ void axpy(T a, const T *__restrict__ x, {{FloatPtr}} y, int n) {
// CHECK-NEXT: >>>>>>> REPLACE
// PTX: ld.global.nc.f32
