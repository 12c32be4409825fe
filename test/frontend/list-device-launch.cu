// Device-side launches (dynamic parallelism) are found: the device side is
// parsed with relocatable device code.
// RUN: forge-port list --format=json %s -- %cuda_mock_flags | FileCheck %s

__global__ void child(int *x) { x[threadIdx.x] = 1; }
__global__ void parent(int *x) { child<<<2, 64, 128>>>(x); }

// CHECK:      "name": "parent",
// CHECK:      "features": [
// CHECK-NEXT:   "dynamic-parallelism"
// CHECK:      "launch_sites": [
// CHECK-NEXT:   {
// CHECK-NEXT:     "kernel": "child",
// The configuration goes through cudaLaunchDevice(func, buffer, grid,
// block, shmem, stream) on the device side: the values are not shifted.
// CHECK:          "grid": {
// CHECK-NEXT:       "text": "2",
// CHECK:          "block": {
// CHECK-NEXT:       "text": "64",
// CHECK:          "shared_mem": {
// CHECK-NEXT:       "text": "128",
// CHECK-NEXT:       "value": 128
// CHECK:          "enclosing_function": "parent",
// CHECK-NEXT:     "in_template": false,
// CHECK-NEXT:     "device_side": true,
