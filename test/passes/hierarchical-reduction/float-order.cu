// REQUIRES: cuda
// A float maximum or minimum written with two integer atomics in a device
// function (the suite's reduce_max / reduce_min): non-negative floats order
// like their bits as ints, negative ones in reverse as unsigned. The block
// combines with fmaxf / fminf and calls the function once.
// RUN: forge-port propose %s --kernel float_max --block 256 --rules=hierarchical-reduction \
// RUN:   --apply -o %t.cu 2>&1 | FileCheck %s --check-prefix=MAX
// RUN: FileCheck %s --check-prefix=MAXFIX --match-full-lines --input-file=%t.cu
// RUN: %nvcc -arch=sm_90 -c %t.cu -o %t.o
// RUN: forge-port propose %s --kernel float_min --block 256 --rules=hierarchical-reduction \
// RUN:   --apply -o %t2.cu 2>&1 | FileCheck %s --check-prefix=MIN
// RUN: FileCheck %s --check-prefix=MINFIX --match-full-lines --input-file=%t2.cu
// RUN: %nvcc -arch=sm_90 -c %t2.cu -o %t2.o
// RUN: not forge-port propose %s --kernel float_test --block 256 --rules=hierarchical-reduction 2>&1 | FileCheck %s --check-prefix=FTEST
// RUN: not forge-port propose %s --kernel mixed --block 256 --rules=hierarchical-reduction 2>&1 | FileCheck %s --check-prefix=MIXED
// RUN: not forge-port propose %s --kernel per_thread --block 256 --rules=hierarchical-reduction 2>&1 | FileCheck %s --check-prefix=SLOT
// RUN: not forge-port propose %s --kernel unnamed --block 256 --rules=hierarchical-reduction 2>&1 | FileCheck %s --check-prefix=UNNAMED

__device__ void atomic_max_float(float *addr, float v) {
  if (__float_as_int(v) >= 0)
    atomicMax((int *)addr, __float_as_int(v));
  else
    atomicMin((unsigned *)addr, __float_as_uint(v));
}

__global__ void float_max(const float *x, float *out, int n) {
  float acc = -3.0e38f;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    acc = fmaxf(acc, x[i]);
  atomic_max_float(out, acc);
}
// MAX: forge-port: note: applied expert:hierarchical-reduction: one atomic_max_float per block: partials in registers, combined by warp shuffles and shared memory, the loop 4 iterations at a time
// MAXFIX:   float partial = __int_as_float(0xff800000);
// MAXFIX:   partial = fmaxf(partial, acc);
// MAXFIX:       atomic_max_float(out, partial);
// MAXFIX:         partial = fmaxf(partial, __shfl_down_sync(0xffffffffu, partial, offset));
// MAXFIX:           atomic_max_float(out, partial);

__device__ void atomicMinFloat(float *where, float value) {
  if (__float_as_int(value) < 0) {
    atomicMax((unsigned int *)where, __float_as_uint(value));
  } else {
    atomicMin((int *)where, __float_as_int(value));
  }
}

__global__ void float_min(const float *x, float *out, unsigned n) {
  unsigned i = threadIdx.x + blockIdx.x * blockDim.x;
  if (i < n)
    atomicMinFloat(out, x[i]);
}
// MIN: forge-port: note: applied expert:hierarchical-reduction: one atomicMinFloat per block: {{.*}}, the guard's blocks strided over a capped grid
// MINFIX:   float partial = __int_as_float(0x7f800000);
// MINFIX:       partial = fminf(partial, x[i]);
// MINFIX:           atomicMinFloat(out, partial);

// The sign tested on the float: -0.0f goes to the signed branch as INT_MIN.
__device__ void atomicMaxByValue(float *addr, float v) {
  if (v >= 0.0f)
    atomicMax((int *)addr, __float_as_int(v));
  else
    atomicMin((unsigned *)addr, __float_as_uint(v));
}
__global__ void float_test(const float *x, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicMaxByValue(out, x[i]);
}
// FTEST: forge-port: note: hierarchical-reduction: not applicable: 'atomicMaxByValue' at line {{[0-9]+}} is a function the analysis does not know as an atomic reduction

// Max for one sign, min for the other: not an order.
__device__ void atomicMixedOrder(float *addr, float v) {
  if (__float_as_int(v) >= 0)
    atomicMax((int *)addr, __float_as_int(v));
  else
    atomicMax((unsigned *)addr, __float_as_uint(v));
}
__global__ void mixed(const float *x, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicMixedOrder(out, x[i]);
}
// MIXED: forge-port: note: hierarchical-reduction: not applicable: 'atomicMixedOrder' at line {{[0-9]+}} is a function the analysis does not know as an atomic reduction

__global__ void per_thread(const float *x, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomic_max_float(&out[i / 4], x[i]);
}
// SLOT: forge-port: note: hierarchical-reduction: not applicable: 'atomic_max_float' at line {{[0-9]+}} combines a float by its order into an address that differs between the threads of a block ('atomic_max_float(&out[i / 4], x[i])')

// The model counts calls named atomic* as atomics; an update written in a
// function named otherwise is not seen as one, and the rule says so.
__device__ void update_max(float *addr, float v) {
  if (__float_as_int(v) >= 0)
    atomicMax((int *)addr, __float_as_int(v));
  else
    atomicMin((unsigned *)addr, __float_as_uint(v));
}
__global__ void unnamed(const float *x, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) update_max(out, x[i]);
}
// UNNAMED: forge-port: note: hierarchical-reduction: not applicable: no atomic reduction: the kernel has no atomic the model knows (the device function 'update_max' it calls: it calls 'atomicMax')
