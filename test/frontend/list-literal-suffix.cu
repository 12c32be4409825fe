// A string literal followed by a macro without a space (`"x="FMT"\n"`,
// legacy debug printing in Rodinia's mummergpu): nvcc warns and expands the
// macro; Clang would reject it as a user-defined literal suffix. The
// frontend parses it as nvcc does: the kernel is found, and the port
// reports no parse error.
// REQUIRES: cuda
// RUN: %nvcc -arch=sm_90 -c %s -o %t.o
// RUN: forge-port list %s | FileCheck %s
// RUN: forge-port port %s --to sm_100 --no-validate -o %t.cu 2>&1 | FileCheck %s --check-prefix=PORT
// RUN: cmp %s %t.cu

#include <cstdio>

#define FMT "%d,%d"

__global__ void show(const int *p) {
  printf("node "FMT"\n", p[2 * threadIdx.x], p[2 * threadIdx.x + 1]);
}

void launch(const int *p) { show<<<1, 32>>>(p); }

// CHECK: 1 kernel, 1 launch site
// CHECK: void show(const int *p)
// PORT-NOT: Clang could not parse
// PORT: list-literal-suffix.cu: 0 error(s), 0 warning(s) for sm_100
