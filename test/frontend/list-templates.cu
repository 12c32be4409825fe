// Kernels of every declaration style: templates with type and non-type
// parameters, namespaces, extern "C", explicit instantiations, and device
// functions that are not kernels.
// RUN: forge-port list --format=json %s -- %cuda_mock_flags | FileCheck %s
// RUN: forge-port list %s -- %cuda_mock_flags | FileCheck %s --check-prefix=TEXT

namespace math {
namespace detail {
template <typename T, int ITEMS, bool CHECK = true>
__global__ void axpy(T a, const T *__restrict__ x, T *y, int n) {
  for (int i = 0; i < ITEMS; ++i) {
    int j = (blockIdx.x * blockDim.x + threadIdx.x) * ITEMS + i;
    if (!CHECK || j < n)
      y[j] += a * x[j];
  }
}
} // namespace detail
} // namespace math

__device__ float square(float v) { return v * v; }

extern "C" __global__ void squares(float *out, const float *in) {
  out[threadIdx.x] = square(in[threadIdx.x]);
}

template __global__ void math::detail::axpy<double, 4>(double, const double *, double *, int);

void run(float *x, float *y, int n) {
  math::detail::axpy<float, 2><<<n / 256, 256>>>(2.0f, x, y, n);
}

// CHECK:      "kernels": [
// CHECK:          "name": "axpy",
// CHECK-NEXT:     "qualified_name": "math::detail::axpy",
// CHECK-NEXT:     "location": {
// CHECK-NEXT:       "file": "{{.*}}list-templates.cu",
// CHECK-NEXT:       "line": 10,
// CHECK-NEXT:       "column": 17
// CHECK:          "is_template": true,
// CHECK-NEXT:     "extern_c": false,
// CHECK-NEXT:     "template_params": [
// CHECK-NEXT:       {
// CHECK-NEXT:         "name": "T",
// CHECK-NEXT:         "kind": "type",
// CHECK-NEXT:         "type": ""
// CHECK-NEXT:       },
// CHECK-NEXT:       {
// CHECK-NEXT:         "name": "ITEMS",
// CHECK-NEXT:         "kind": "non-type",
// CHECK-NEXT:         "type": "int"
// CHECK-NEXT:       },
// CHECK-NEXT:       {
// CHECK-NEXT:         "name": "CHECK",
// CHECK-NEXT:         "kind": "non-type",
// CHECK-NEXT:         "type": "bool",
// CHECK-NEXT:         "default": "true"
// CHECK:          "params": [
// CHECK-NEXT:       {
// CHECK-NEXT:         "name": "a",
// CHECK-NEXT:         "type": "T",
// CHECK-NEXT:         "pointer": false,
// CHECK:              "name": "x",
// CHECK-NEXT:         "type": "const T *__restrict",
// CHECK-NEXT:         "pointer": true,
// CHECK-NEXT:         "const_pointee": true,
// CHECK-NEXT:         "restrict": true
// CHECK:              "name": "y",
// CHECK-NEXT:         "type": "T *",
// CHECK-NEXT:         "pointer": true,
// CHECK-NEXT:         "const_pointee": false,
// CHECK-NEXT:         "restrict": false
// CHECK:          "instantiations": [
// CHECK-NEXT:       {
// CHECK-NEXT:         "template_args": [
// CHECK-NEXT:           {
// CHECK-NEXT:             "text": "double",
// CHECK-NEXT:             "value": "double"
// CHECK-NEXT:           },
// CHECK-NEXT:           {
// CHECK-NEXT:             "text": "4",
// CHECK-NEXT:             "value": 4
// CHECK:              "explicit": true,
// CHECK:              "text": "float",
// CHECK:              "text": "2",
// CHECK-NEXT:         "value": 2
// CHECK:              "explicit": false,
// CHECK:          "name": "squares",
// CHECK-NEXT:     "qualified_name": "squares",
// CHECK:          "extern_c": true,
// CHECK-NOT:      "name": "square",
// CHECK:        "launch_sites": [
// CHECK:          "kernel": "math::detail::axpy",
// CHECK-NEXT:     "resolved": true,

// TEXT: list-templates.cu (read for sm_80): 2 kernels, 1 launch site, 2 tunables
// TEXT: math::detail::axpy template<typename T, int ITEMS, bool CHECK>
// TEXT: instantiated <double, 4, true> (explicit)
// TEXT: instantiated <float, 2, true>
// TEXT: squares
// TEXT: math::detail::axpy<float, 2, true>  [chevron] in run
