// REQUIRES: cuda
// Each operator with its identity element and its combine; the value is
// converted to the atomic's type where the two differ.
// RUN: forge-port propose %s --kernel or_flags --block 256 --rules=hierarchical-reduction --apply -o %t.or.cu 2>&1 | FileCheck %s --check-prefix=OR
// RUN: FileCheck %s --check-prefix=ORFIX --match-full-lines --input-file=%t.or.cu
// RUN: %nvcc -arch=sm_90 -c %t.or.cu -o %t.or.o
// RUN: forge-port propose %s --kernel and_mask --block 256 --rules=hierarchical-reduction --apply -o %t.and.cu 2>&1 | FileCheck %s --check-prefix=AND
// RUN: FileCheck %s --check-prefix=ANDFIX --match-full-lines --input-file=%t.and.cu
// RUN: %nvcc -arch=sm_90 -c %t.and.cu -o %t.and.o
// RUN: forge-port propose %s --kernel xor_all --block 256 --rules=hierarchical-reduction --apply -o %t.xor.cu 2>&1 | FileCheck %s --check-prefix=XOR
// RUN: FileCheck %s --check-prefix=XORFIX --match-full-lines --input-file=%t.xor.cu
// RUN: %nvcc -arch=sm_90 -c %t.xor.cu -o %t.xor.o
// RUN: forge-port propose %s --kernel sub_all --block 256 --rules=hierarchical-reduction --apply -o %t.sub.cu 2>&1 | FileCheck %s --check-prefix=SUB
// RUN: FileCheck %s --check-prefix=SUBFIX --match-full-lines --input-file=%t.sub.cu
// RUN: %nvcc -arch=sm_90 -c %t.sub.cu -o %t.sub.o
// RUN: forge-port propose %s --kernel min_bits --block 256 --rules=hierarchical-reduction --apply -o %t.min.cu 2>&1 | FileCheck %s --check-prefix=MIN
// RUN: FileCheck %s --check-prefix=MINFIX --match-full-lines --input-file=%t.min.cu
// RUN: %nvcc -arch=sm_90 -c %t.min.cu -o %t.min.o
// RUN: forge-port propose %s --kernel count_positive --block 256 --rules=hierarchical-reduction --apply -o %t.cnt.cu 2>&1 | FileCheck %s --check-prefix=CNT
// RUN: FileCheck %s --check-prefix=CNTFIX --match-full-lines --input-file=%t.cnt.cu
// RUN: %nvcc -arch=sm_90 -c %t.cnt.cu -o %t.cnt.o
// RUN: forge-port propose %s --kernel argmax_packed --block 256 --rules=hierarchical-reduction --apply -o %t.arg.cu 2>&1 | FileCheck %s --check-prefix=ARG
// RUN: FileCheck %s --check-prefix=ARGFIX --match-full-lines --input-file=%t.arg.cu
// RUN: %nvcc -arch=sm_90 -c %t.arg.cu -o %t.arg.o

__global__ void or_flags(const unsigned *flags, unsigned *out, int n) {
  unsigned acc = 0;
  for (int i = threadIdx.x + blockIdx.x * blockDim.x; i < n; i += blockDim.x * gridDim.x)
    acc |= flags[i];
  atomicOr(out, acc);
}
// OR: forge-port: note: applied expert:hierarchical-reduction: one atomicOr per block: {{.*}}
// ORFIX:   unsigned int partial = 0u;
// ORFIX:   partial |= acc;
// ORFIX:         partial |= __shfl_down_sync(0xffffffffu, partial, offset);
// ORFIX:           atomicOr(out, partial);

__global__ void and_mask(const int *x, int *out, unsigned n) {
  unsigned idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx < n) {
    int v = x[idx];
    atomicAnd(out, v);
  }
}
// AND: forge-port: note: applied expert:hierarchical-reduction: one atomicAnd per block: {{.*}}
// ANDFIX:   int partial = -1;
// ANDFIX:       partial &= v;
// ANDFIX:         partial = t < threads / 32u ? warp_partials[t] : -1;

__global__ void xor_all(const unsigned long long *x, unsigned long long *out, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    atomicXor(out, x[i]);
}
// XOR: forge-port: note: applied expert:hierarchical-reduction: one atomicXor per block: {{.*}}, the loop 4 iterations at a time
// XORFIX:   unsigned long long partial = 0ull;
// XORFIX:     auto step = [&](int i) { partial ^= x[i]; };

// atomicSub: the values are added, and the block subtracts its total.
__global__ void sub_all(const int *x, int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicSub(out, x[i]);
}
// SUB: forge-port: note: applied expert:hierarchical-reduction: one atomicSub per block: {{.*}}
// SUBFIX:     if (i < n) partial += x[i];
// SUBFIX:           atomicSub(out, partial);

// A float minimum through the int bits (non-negative inputs).
__global__ void min_bits(const float *v, float *m, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicMin((int *)m, __float_as_int(v[i]));
}
// MIN: forge-port: note: applied expert:hierarchical-reduction: one atomicMin per block: {{.*}}
// MINFIX:   int partial = 2147483647;
// MINFIX:     if (i < n) partial = min(partial, __float_as_int(v[i]));
// MINFIX:           atomicMin((int *)m, partial);

// A count: an int literal into an unsigned counter, under a data test.
__global__ void count_positive(const float *x, unsigned *count, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && x[i] > 0.0f)
    atomicAdd(count, 1);
}
// CNT: forge-port: note: applied expert:hierarchical-reduction: one atomicAdd per block: {{.*}}
// CNTFIX:   unsigned int partial = 0u;
// CNTFIX:     if (i < n && x[i] > 0.0f)
// CNTFIX-NEXT:       partial += (unsigned int)1;

// An argmax packed into 64 bits (value above, index below) is a maximum.
__global__ void argmax_packed(const float *x, unsigned long long *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    unsigned long long key = ((unsigned long long)__float_as_uint(x[i]) << 32) | (unsigned)(n - i);
    atomicMax(out, key);
  }
}
// ARG: forge-port: note: applied expert:hierarchical-reduction: one atomicMax per block: {{.*}}
// ARGFIX:   unsigned long long partial = 0ull;
// ARGFIX:       partial = max(partial, key);
