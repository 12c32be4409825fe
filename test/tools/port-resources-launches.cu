// The resource table predicts occupancy for each kernel's real block size,
// read from its launches through the kernel index: a dim3 built from
// literals, a #define, an enum constant, a template argument per
// instantiation. Only a block size known at run time is assumed (and
// marked). Names print in full, a long one on a line of its own. A template
// instantiation that nothing launches is listed with --all only.
// REQUIRES: cuda
// RUN: forge-port %s --from sm_80 --to sm_100 2>&1 | FileCheck %s --implicit-check-not='scale<3>'
// RUN: forge-port %s --from sm_80 --to sm_100 --all 2>&1 | FileCheck %s --check-prefix=ALL
// RUN: forge-port %s --from sm_80 --to sm_100 --format=json | FileCheck %s --check-prefix=JSON
// RUN: forge-port %s --from sm_80 --to sm_100 --assume-block-size 64 2>&1 | FileCheck %s --check-prefix=ASSUME

#define THREADS 128
enum { kWarps = 4 };

__global__ void tile2d(float *x) { x[threadIdx.y * 16 + threadIdx.x] *= 2.0f; }
__global__ void byMacro(float *x) { x[threadIdx.x] += 1.0f; }
__global__ void runtimeBlock(float *x) { x[threadIdx.x] += 1.0f; }
__global__ void a_kernel_whose_name_is_longer_than_forty_characters(float *x) {
  x[threadIdx.x] = 0.0f;
}
template <int N> __global__ void scale(float *x) { x[threadIdx.x] *= N; }
// Compiled by nvcc, launched by nothing in this file.
template __global__ void scale<3>(float *);

template <int BS> void launchScale(float *x) { scale<BS><<<1, BS>>>(x); }

void run(float *x, int threads) {
  dim3 block(16, 16);
  tile2d<<<1, block>>>(x);
  byMacro<<<1, THREADS>>>(x);
  runtimeBlock<<<1, threads>>>(x);
  a_kernel_whose_name_is_longer_than_forty_characters<<<1, kWarps * 32>>>(x);
  launchScale<64>(x);
  launchScale<512>(x);
}

// CHECK:      resources per kernel, sm_80 -> sm_100
// CHECK-DAG:  {{^  }}tile2d(float*) {{.*}} 256 {{ *}}100% -> 100%
// CHECK-DAG:  {{^  }}byMacro(float*) {{.*}} 128 {{ *}}100% -> 100%
// CHECK-DAG:  {{^  }}runtimeBlock(float*) {{.*}} 256 (assumed) {{ *}}100% -> 100%
// CHECK-DAG:  {{^  }}a_kernel_whose_name_is_longer_than_forty_characters(float*){{$}}
// CHECK-DAG:  {{^                                   }}{{[0-9]}}{{.*}} 128 {{ *}}100% -> 100%
// CHECK-DAG:  {{^  }}void scale<64>(float*) {{.*}} 64 {{ *}}100% -> 100%
// CHECK-DAG:  {{^  }}void scale<512>(float*) {{.*}} 512 {{ *}}100% -> 100%
// CHECK:      (1 more kernel compiled that nothing in the file launches; --all lists it)

// ALL:     void scale<3>(float*) {{.*}} 256 (assumed)
// ALL-NOT: more kernel

// JSON:      "kernel": "tile2d(float*)",
// JSON-NEXT: "threads_per_block": 256,
// JSON-NEXT: "threads_from": "launch",
// JSON-NEXT: "dynamic_shared_bytes": 0,
// JSON-NEXT: "symbol": "_Z6tile2dPf",
// JSON-NEXT: "launched": true,
// JSON-NEXT: "launch": {
// JSON-NEXT:   "file": "{{.*}}port-resources-launches.cu",
// JSON-NEXT:   "line": 30,
// JSON-NEXT:   "column": 3,
// JSON-NEXT:   "offset": {{[0-9]+}}
// JSON:      "resources_not_listed": 1

// ASSUME: runtimeBlock(float*) {{.*}} 64 (assumed)
