// REQUIRES: cuda
// A block size held in a host local is known when the function never
// changes the local after its definition (HostValues: clang's
// ExprMutationAnalyzer over the enclosing function): `dim3 block(32, 8)`,
// `int threads = 128`, a dim3 built from such ints, and one copied from
// another. A local that is assigned, has a field assigned, or is passed by
// non-const reference is known only at run time, and the rule declines.
// RUN: forge-port propose %s --kernel tile --rules=launch-bounds --apply -o %t.cu 2>&1 | FileCheck %s --check-prefix=TILE
// RUN: FileCheck %s --check-prefix=FIX --match-full-lines --input-file=%t.cu
// RUN: %nvcc -arch=sm_90 -ptx %t.cu -o - | FileCheck %s --check-prefix=PTX
// RUN: forge-port propose %s --kernel rows --rules=launch-bounds 2>/dev/null | FileCheck %s --check-prefix=ROWS
// RUN: not forge-port propose %s --kernel assigned --rules=launch-bounds 2>&1 | FileCheck %s --check-prefix=ASSIGNED
// RUN: not forge-port propose %s --kernel field --rules=launch-bounds 2>&1 | FileCheck %s --check-prefix=FIELD
// RUN: not forge-port propose %s --kernel byref --rules=launch-bounds 2>&1 | FileCheck %s --check-prefix=BYREF

__global__ void tile(float *o, const float *i, int w) {
  int x = blockIdx.x * 32 + threadIdx.x, y = blockIdx.y * 32 + threadIdx.y;
  for (int j = 0; j < 32; j += 8)
    o[x * w + y + j] = i[(y + j) * w + x];
}
// FIX: __global__ void __launch_bounds__(256) tile(float *o, const float *i, int w) {

__global__ void rows(float *s, int n) { s[blockIdx.x * blockDim.x + threadIdx.x] = n; }
__global__ void assigned(float *s, int n) { s[threadIdx.x] = n; }
__global__ void field(float *s, int n) { s[threadIdx.x] = n; }
__global__ void byref(float *s, int n) { s[threadIdx.x] = n; }

void widen(dim3 &b) { b.x *= 2; }

void run(float *o, const float *i, int n) {
  dim3 grid(n / 32, n / 32), block(32, 8);
  tile<<<grid, block>>>(o, i, n);
  int threads = 128, pairs = 2;
  rows<<<n / threads, threads>>>(o, n);
  dim3 wide(threads, pairs);
  dim3 copy = wide;
  rows<<<n / 256, copy>>>(o, n);
  int t = 64;
  t = n > 4096 ? 512 : 64;
  assigned<<<1, t>>>(o, n);
  dim3 f(32, 4);
  f.y = 8;
  field<<<1, f>>>(o, n);
  dim3 r(64);
  widen(r);
  byref<<<1, r>>>(o, n);
}

// TILE: forge-port: note: applied expert:launch-bounds: __launch_bounds__(256) from the block size 256
// PTX: .maxntid 256, 1, 1
// ROWS: # {{.*}}The 2 launches of the kernel in this file were checked: the largest block, 256 threads, is the launch at line 37's.
// ASSIGNED: launch-bounds: not applicable: the launch at line 40 has a block size known only at run time ('t')
// FIELD: launch-bounds: not applicable: the launch at line 43 has a block size known only at run time ('f')
// BYREF: launch-bounds: not applicable: the launch at line 46 has a block size known only at run time ('r')
