// REQUIRES: cuda
// CUDA by Example's spellings: the grid-stride loop as a while loop whose
// body ends by stepping the index, and the element count a macro. Both are
// vectorised like the for loop (the index's declaration before the loop is
// replaced with the loops); a while loop with a 'continue' (which skips the
// step), an index read after the loop, or a step that is not the body's
// last statement are declined. The results compile with nvcc into 16-byte
// loads and stores.
// RUN: forge-port propose %s --kernel add_while --block 128 --rules=vectorize --apply -o %t.while.cu 2>&1 | FileCheck %s --check-prefix=NOTE
// RUN: FileCheck %s --check-prefix=WHILE --input-file=%t.while.cu
// RUN: %nvcc -arch=sm_90 -ptx %t.while.cu -o - | FileCheck %s --check-prefix=PTX
// A spec with the book's fixed grid of 128 blocks: the grid stays (a
// quarter of it would leave the GPU emptier), where a one-element-per-thread
// launch's grid is divided by 4.
// RUN: forge-port propose %s --spec %S/Inputs/add_while.json --rules=vectorize 2>&1 | FileCheck %s --check-prefix=FIXED
// FIXED: The grid-stride loop runs on a fixed grid of 128 blocks, not one sized to the data; it stays.
// FIXED-NOT: spec: grid.x
// RUN: forge-port propose %s --kernel scale_if --block 256 --rules=vectorize --apply -o %t.if.cu 2>&1 | FileCheck %s --check-prefix=NOTE-IF
// RUN: FileCheck %s --check-prefix=IF --input-file=%t.if.cu
// RUN: %nvcc -arch=sm_90 -c %t.if.cu -o %t.if.o
// RUN: not forge-port propose %s --kernel skips --block 128 --rules=vectorize 2>&1 | FileCheck %s --check-prefix=CONT
// RUN: not forge-port propose %s --kernel read_after --block 128 --rules=vectorize 2>&1 | FileCheck %s --check-prefix=AFTER
// RUN: not forge-port propose %s --kernel step_first --block 128 --rules=vectorize 2>&1 | FileCheck %s --check-prefix=FIRST

#define N (33 * 1024 * 1024)

__global__ void add_while(int *a, int *b, int *c) {
  int tid = threadIdx.x + blockIdx.x * blockDim.x;
  while (tid < N) {
    c[tid] = a[tid] + b[tid];
    tid += blockDim.x * gridDim.x;
  }
}
// NOTE: forge-port: note: applied expert:vectorize: 16-byte accesses (int4) to a, b, c
// WHILE: __global__ void add_while(int *a, int *b, int *c) {
// WHILE-NOT: {{^}}  int tid = threadIdx.x
// WHILE: const long long forge_n = N;
// WHILE: const int4 forge_a = reinterpret_cast<int4 *>(a)[forge_v];
// WHILE: for (long long tid = forge_vectors * 4 + forge_first; tid < forge_n; tid += forge_stride)
// WHILE-NEXT: c[tid] = a[tid] + b[tid];
// WHILE-NEXT: {{^}}}{{$}}
// PTX: ld.global.v4.u32
// PTX: st.global.v4.u32

__global__ void scale_if(float *x, float s) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < N) x[i] *= s;
}
// NOTE-IF: forge-port: note: applied expert:vectorize: 16-byte accesses (float4) to x
// IF: const long long forge_n = N;

__global__ void skips(const float *x, float *y, int n) {
  int i = threadIdx.x + blockIdx.x * blockDim.x;
  while (i < n) {
    if (x[i] < 0.f) { i += blockDim.x * gridDim.x; continue; }
    y[i] = x[i];
    i += blockDim.x * gridDim.x;
  }
}
// CONT: vectorize: not applicable

__global__ void read_after(const float *x, float *y, int n, int *last) {
  int i = threadIdx.x + blockIdx.x * blockDim.x;
  while (i < n) {
    y[i] = 2.f * x[i];
    i += blockDim.x * gridDim.x;
  }
  last[0] = i;
}
// AFTER: vectorize: not applicable

__global__ void step_first(const float *x, float *y, int n) {
  int i = threadIdx.x + blockIdx.x * blockDim.x;
  while (i < n) {
    i += blockDim.x * gridDim.x;
    y[i - blockDim.x * gridDim.x] = x[i - blockDim.x * gridDim.x];
  }
}
// FIRST: vectorize: not applicable: the while loop (line {{[0-9]+}}) does not end its body by stepping 'i'
