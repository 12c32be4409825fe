// Device-side launches (dynamic parallelism) are found: the device side is
// parsed with relocatable device code.
// RUN: forge-port list --format=json %s -- %cuda_mock_flags | FileCheck %s

__global__ void child(int *x) { x[threadIdx.x] = 1; }
__global__ void parent(int *x) { child<<<1, 32>>>(x); }

// CHECK:      "name": "parent",
// CHECK:      "features": [
// CHECK-NEXT:   "dynamic-parallelism"
// CHECK:      "launch_sites": [
// CHECK-NEXT:   {
// CHECK-NEXT:     "kernel": "child",
// CHECK:          "enclosing_function": "parent",
// CHECK-NEXT:     "in_template": false,
// CHECK-NEXT:     "device_side": true,
