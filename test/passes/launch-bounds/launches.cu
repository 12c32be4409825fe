// REQUIRES: cuda
// The bound admits the largest block of every launch in the file, with the
// requested block size: two launches of 128 and 512 threads (one a dim3)
// give 512 even when 256 is requested; a launch whose block size is known
// only at run time declines; a template kernel's launches count through
// its instantiations.
// RUN: forge-port propose %s --kernel scale --rules=launch-bounds --block 256 --apply -o %t.cu 2>&1 \
// RUN:   | FileCheck %s --check-prefix=NOTE
// RUN: FileCheck %s --check-prefix=FIX --match-full-lines --input-file=%t.cu
// RUN: %nvcc -arch=sm_90 -ptx %t.cu -o - | FileCheck %s --check-prefix=PTX
// RUN: forge-port propose %s --kernel scale --rules=launch-bounds --block 1024 2>/dev/null | FileCheck %s --check-prefix=REQ
// RUN: not forge-port propose %s --kernel runtime --rules=launch-bounds --block 256 2>&1 | FileCheck %s --check-prefix=RUNTIME
// RUN: forge-port propose %s --kernel fill --rules=launch-bounds 2>/dev/null | FileCheck %s --check-prefix=TMPL

__global__ void scale(float *y, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] *= a;
}
// FIX: __global__ void __launch_bounds__(512) scale(float *y, float a, int n) {

__global__ void runtime(float *y) { y[threadIdx.x] = 0.f; }

template <typename T>
__global__ void fill(T *y, T v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = v;
}

void run(float *y, int n, int threads) {
  scale<<<(n + 127) / 128, 128>>>(y, 2.f, n);
  dim3 big(256, 2);
  scale<<<(n + 511) / 512, dim3(512)>>>(y, 0.5f, n);
  runtime<<<1, threads>>>(y);
  fill<float><<<(n + 63) / 64, 64>>>(y, 1.f, n);
  fill<<<(n + 191) / 192, dim3(96, 2)>>>(y, 2.f, n);
}

// NOTE: forge-port: note: applied expert:launch-bounds: __launch_bounds__(512) from the block size 512
// PTX: .maxntid 512, 1, 1
// REQ: # expert:launch-bounds: __launch_bounds__(1024) from the block size 1024
// RUNTIME: forge-port: note: launch-bounds: not applicable: the launch at line 34 has a block size known only at run time ('threads')
// TMPL: # expert:launch-bounds: __launch_bounds__(192) from the block size 192
// TMPL: # {{.*}}The 2 launches of the kernel in this file were checked: the largest block, 192 threads, is the launch at line 36's.
