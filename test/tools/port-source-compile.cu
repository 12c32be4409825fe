// nvcc validates the result for the target. It compiles for the source
// arch too only where something names that arch (--from, or an arch in the
// file's flags), for the resource comparison, or where the target compile
// fails, to tell a failure of the target from one the file had before. A
// host C++ unit (.cpp) is compiled once: nvcc builds it as host code.
// REQUIRES: cuda
// RUN: forge-port %s --to sm_100 --format=json | FileCheck %s --check-prefix=NOTASKED
// RUN: forge-port %s --to sm_100 2>&1 | FileCheck %s --check-prefix=TEXT
// RUN: forge-port %s --from sm_80 --to sm_100 --format=json | FileCheck %s --check-prefix=FROM
// RUN: forge-port %s --from sm_80 --to sm_100 2>&1 | FileCheck %s --check-prefix=FROMTEXT
// RUN: forge-port %s --to sm_100 --format=json -- --cuda-gpu-arch=sm_80 | FileCheck %s --check-prefix=FROM
// RUN: forge-port %s --to sm_80 --format=json -- --cuda-gpu-arch=sm_80 | FileCheck %s --check-prefix=SAME
// RUN: not forge-port %s --to sm_100 -- -DBREAK_ON_TARGET 2>&1 | FileCheck %s --check-prefix=TARGETBREAKS
// RUN: not forge-port %s --to sm_100 --format=json -- -DBREAK_ON_TARGET | FileCheck %s --check-prefix=TARGETJSON
// RUN: not forge-port %s --to sm_100 -- -DBREAK_EVERYWHERE 2>&1 | FileCheck %s --check-prefix=BROKEN
// RUN: cp %S/Inputs/port-host-unit.cpp %t.cpp
// RUN: forge-port %t.cpp --to sm_100 --format=json | FileCheck %s --check-prefix=HOST

__global__ void scale(float *x, float a) {
#if defined(BREAK_ON_TARGET) && __CUDA_ARCH__ >= 1000
  this_is_not_declared_on_sm_100(x);
#endif
#ifdef BREAK_EVERYWHERE
  this_is_not_declared(x);
#endif
  x[threadIdx.x] *= a;
}

void run(float *x) { scale<<<1, 128>>>(x, 2.0f); }

// NOTASKED:      "validation": {
// NOTASKED-NEXT:   "target": "sm_100",
// NOTASKED-NEXT:   "compiles": true,
// NOTASKED-NEXT:   "source_compile": "not-asked"
// NOTASKED-NEXT: }
// NOTASKED-NOT: "arch": "sm_80"

// TEXT: nvcc compiles the file for sm_100
// TEXT: resources per kernel, sm_100 (occupancy predicted

// FROM:      "validation": {
// FROM-NEXT:   "target": "sm_100",
// FROM-NEXT:   "compiles": true,
// FROM-NEXT:   "source_compile": "compared",
// FROM-NEXT:   "source_compiles": true
// FROM:        "arch": "sm_80",

// FROMTEXT: resources per kernel, sm_80 -> sm_100 (occupancy predicted

// SAME: "source_compile": "same-arch"

// TARGETBREAKS: error: {{.*}}: nvcc does not compile the file for sm_100
// TARGETBREAKS: note: nvcc compiles it for sm_80, the source arch: the failure is the target's

// TARGETJSON:      "compiles": false,
// TARGETJSON-NEXT: "source_compile": "target-failed",
// TARGETJSON-NEXT: "source_compiles": true

// BROKEN: error: {{.*}}: nvcc does not compile the file for sm_100
// BROKEN: note: nvcc does not compile it for sm_80, the source arch, either: the failure is not the target's

// HOST:      "validation": {
// HOST-NEXT:   "target": "sm_100",
// HOST-NEXT:   "compiles": true,
// HOST-NEXT:   "source_compile": "host-only"
