// Relocatable device code reaches nvcc's validation: a kernel that launches
// a kernel (dynamic parallelism, as cuda-samples' cdp* programs) compiles
// only with -rdc=true. Given as Clang's -fgpu-rdc after '--', or as the
// compile database's -rdc=true (which Clang takes as -fgpu-rdc), the parse
// accepts the device-side launch and nvcc validates with -rdc=true.
// Without it, both fail, as nvcc does.
// REQUIRES: cuda
// RUN: rm -rf %t.db && mkdir -p %t.db && cp %s %t.db/cdp.cu
// RUN: %nvcc -arch=sm_100 -rdc=true -c %t.db/cdp.cu -o %t.o
// RUN: forge-port port %t.db/cdp.cu --to sm_100 -- -fgpu-rdc > %t.flag.log 2>&1
// RUN: FileCheck %s --input-file=%t.flag.log --implicit-check-not='error:'
// RUN: echo '[{"directory": "%t.db", "file": "cdp.cu", "command": "nvcc -O3 -arch=sm_80 -rdc=true -c cdp.cu -o cdp.o"}]' > %t.db/compile_commands.json
// RUN: forge-port port -p %t.db %t.db/cdp.cu --to sm_100 > %t.db.log 2>&1
// RUN: FileCheck %s --input-file=%t.db.log --implicit-check-not='error:'
// CHECK: cdp.cu: 0 error(s), 0 warning(s) for sm_100; {{.*}}nvcc compiles the file for sm_100
// RUN: not forge-port port %t.db/cdp.cu --to sm_100 > %t.plain.log 2>&1
// RUN: FileCheck %s --check-prefix=PLAIN --input-file=%t.plain.log
// PLAIN: nvcc does not compile the file for sm_100

#include <cstdio>

__global__ void child(int depth) { printf("depth %d\n", depth); }

__global__ void parent(int depth) {
  if (threadIdx.x == 0)
    child<<<1, 1>>>(depth + 1);
}

int main() {
  parent<<<1, 32>>>(0);
  return cudaDeviceSynchronize() != cudaSuccess;
}
