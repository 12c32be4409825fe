// After validating with nvcc, port compares registers, spills, static
// shared memory and predicted occupancy between --from and --to, for the
// block size and dynamic shared memory of the kernel's launch.
// REQUIRES: cuda
// RUN: forge-port %s --from sm_80 --to sm_100 --checks=-shared-memory-limits 2>&1 | FileCheck %s
// RUN: forge-port %s --from sm_80 --to sm_100 --checks=-shared-memory-limits --format=json | FileCheck %s --check-prefix=JSON

__global__ void stage(const float *in, float *out) {
  extern __shared__ float tile[];
  tile[threadIdx.x] = in[blockIdx.x * blockDim.x + threadIdx.x];
  __syncthreads();
  out[blockIdx.x * blockDim.x + threadIdx.x] = tile[blockDim.x - 1 - threadIdx.x];
}

__global__ void plain(float *x) { x[threadIdx.x] *= 2.0f; }

void run(const float *in, float *out) {
  stage<<<4096, 1024, 100 * 1024>>>(in, out);
}

// 100 KB per block: one block (32 of 64 warps) in sm_80's 164 KB, two in
// sm_100's 228 KB.
// CHECK: nvcc compiles the file for sm_100
// CHECK: resources per kernel, sm_80 -> sm_100 (occupancy predicted from the Arch database; no GPU measured it):
// CHECK-DAG: stage(float const*, float*) {{.*}} 1024 +102400B  50% -> 100%
// CHECK-DAG: plain(float*) {{.*}} 256 (assumed)

// JSON:      "kernel": "plain(float*)",
// JSON:      "threads_from": "assumed",
// JSON:      "kernel": "stage(float const*, float*)",
// JSON-NEXT: "threads_per_block": 1024,
// JSON-NEXT: "threads_from": "launch",
// JSON-NEXT: "dynamic_shared_bytes": 102400,
// JSON:        "arch": "sm_100",
// JSON:        "occupancy": "100%",
// JSON-NEXT:   "occupancy_kind": "predicted"
// JSON:        "arch": "sm_80",
// JSON:        "occupancy": "50%",
