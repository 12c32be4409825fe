// Kernels declared in the project's own headers are listed with the
// header's location; kernels of system headers are not.
// RUN: cd %S && forge-port list --format=json list-header.cu -- %cuda_mock_flags | FileCheck %s

#include "Inputs/project_kernels.cuh"

void launch(float *out) { headerKernel<128><<<4, 128>>>(out); }

// CHECK:      "name": "headerKernel",
// CHECK-NEXT: "qualified_name": "headerKernel",
// CHECK-NEXT: "location": {
// CHECK-NEXT:   "file": "Inputs/project_kernels.cuh",
// CHECK-NEXT:   "line": 7,
// CHECK:      "launch_sites": [
// CHECK:        "kernel": "headerKernel",
// CHECK:          "file": "list-header.cu",
// CHECK-NEXT:     "line": 7,
// CHECK:        "name": "headerKernel::BLOCK",
// CHECK-NEXT:   "origin": "template",
// CHECK:        "current": 128,
