// REQUIRES: cuda
// What the rule declines, each with its reason. The launches at the end
// pass buffers from distinct cudaMallocs, except where a case says.
// RUN: not forge-port propose %s --kernel moving --rules=accumulator-promotion 2>&1 | FileCheck %s --check-prefix=MOVING
// RUN: not forge-port propose %s --kernel self_read --rules=accumulator-promotion 2>&1 | FileCheck %s --check-prefix=SELF
// RUN: not forge-port propose %s --kernel unlaunched --rules=accumulator-promotion 2>&1 | FileCheck %s --check-prefix=NOLAUNCH
// RUN: forge-port propose %s --kernel unlaunched --rules=accumulator-promotion --assume-no-alias 2>&1 | FileCheck %s --check-prefix=PROMISED
// RUN: not forge-port propose %s --kernel same_buffer --rules=accumulator-promotion 2>&1 | FileCheck %s --check-prefix=SAME
// RUN: not forge-port propose %s --kernel synced --rules=accumulator-promotion 2>&1 | FileCheck %s --check-prefix=SYNC
// RUN: not forge-port propose %s --kernel early_return --rules=accumulator-promotion 2>&1 | FileCheck %s --check-prefix=RETURN
// RUN: not forge-port propose %s --kernel data_guard --rules=accumulator-promotion 2>&1 | FileCheck %s --check-prefix=GUARD
// RUN: not forge-port propose %s --kernel atomics --rules=accumulator-promotion 2>&1 | FileCheck %s --check-prefix=ATOMIC
// RUN: not forge-port propose %s --kernel helper --rules=accumulator-promotion 2>&1 | FileCheck %s --check-prefix=CALL
// RUN: not forge-port propose %s --kernel gathered --rules=accumulator-promotion 2>&1 | FileCheck %s --check-prefix=GATHER
// RUN: not forge-port propose %s --kernel in_register --rules=accumulator-promotion 2>&1 | FileCheck %s --check-prefix=NONE
// RUN: not forge-port propose %s --kernel volatile_acc --rules=accumulator-promotion 2>&1 | FileCheck %s --check-prefix=VOLATILE

// The index moves with the loop: a different element every iteration.
__global__ void moving(const float *a, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  for (int k = 0; k < n; ++k)
    out[i * n + k] += a[k];
}
// MOVING: forge-port: note: accumulator-promotion: not applicable: the index of 'out[i * n + k]' moves with the loop over 'k' (line {{[0-9]+}}): not the same element in every iteration of the loop over 'k' at line {{[0-9]+}}

// The loop also reads the accumulated buffer at another index (x[k] may be
// y[i]): the loads must see the stores.
__global__ void self_read(const float *A, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    for (int k = 0; k < n; ++k)
      y[i] += A[i * n + k] * y[k];
}
// SELF: not applicable: the loop over 'k' at line {{[0-9]+}} also accesses 'y' at 'k': 'y[k]' (line {{[0-9]+}}), which may be the element 'y[i]' (the index is another one)

// No launch in the file: 'out' may be 'a' or 'w'.
__global__ void unlaunched(const float *a, const float *w, float *out, int n, int taps) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    for (int t = 0; t < taps; ++t)
      out[i] += w[t] * a[i + t];
  }
}
// NOLAUNCH: not applicable: no launch of 'unlaunched' in this file shows that 'out' and 'a', 'w' point into distinct allocations (a store to 'out' could change what the loop reads through them); pass --assume-no-alias to promise it
// PROMISED: # expert:accumulator-promotion: 'out[i]' kept in a register 'acc'
// PROMISED: No launch of the kernel is in this file: that 'out' does not overlap 'a', 'w' is the user's promise (--assume-no-alias).

// The launch passes one allocation for the accumulated pointer and a read one.
__global__ void same_buffer(const float *a, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    for (int k = 0; k < 8; ++k)
      out[i] += a[i * 8 + k];
  }
}
// SAME: not applicable: the launch at line {{[0-9]+}} passes one allocation for 'out' and 'a': the accumulated element may be read through 'a'

// __syncthreads in the loop: other threads may read the element between
// iterations.
__global__ void synced(const float *a, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  for (int k = 0; k < n; ++k) {
    out[i] += a[(size_t)k * n + i];
    __syncthreads();
  }
}
// SYNC: not applicable: the loop over 'k' at line {{[0-9]+}} calls __syncthreads: other threads may read 'out' between its iterations

// An early return from the loop would skip the store after it.
__global__ void early_return(const float *a, float *out, int n, float limit) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  for (int k = 0; k < n; ++k) {
    out[i] += a[(size_t)k * n + i];
    if (out[i] > limit)
      return;
  }
}
// RETURN: not applicable: the loop returns at line {{[0-9]+}}: the store after the loop would be skipped

// The update runs under a condition that changes from one iteration to the
// next, with no store before the loop: the load and the store outside the
// loop would touch the element where the original may not.
__global__ void data_guard(const float *a, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  for (int k = 0; k < n; ++k)
    if (a[k] > 0.f)
      out[i] += a[k];
}
// GUARD: not applicable: 'out[i]' (line {{[0-9]+}}) runs under 'a[k] > 0.f', which may change in the loop over 'k' at line {{[0-9]+}} (it loads 'a[k]' from memory): the load before the loop and the store after it could not be made under the same condition

// An atomic on the accumulated buffer in the loop.
__global__ void atomics(const int *a, int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  for (int k = 0; k < n; ++k) {
    out[i] += a[k];
    atomicAdd(&out[0], 1);
  }
}
// ATOMIC: not applicable: the loop over 'k' at line {{[0-9]+}} also updates 'out' atomically: 'atomicAdd(&out[0], 1)' (line {{[0-9]+}})

// A call that is handed a pointer may read or write the element.
__device__ void note_progress(float *where, float v) { where[1] = v; }
__global__ void helper(const float *a, float *out, float *log, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  for (int k = 0; k < n; ++k) {
    out[i] += a[k];
    note_progress(log, a[k]);
  }
}
// CALL: not applicable: the loop passes a pointer or a reference to 'note_progress' at line {{[0-9]+}}: it may read or write the accumulated element

// The index is loaded from memory (a scatter): the model does not know it.
__global__ void gathered(const float *a, const int *slot, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  for (int k = 0; k < n; ++k)
    out[slot[i]] += a[(size_t)k * n + i];
}
// GATHER: not applicable: the index of 'out[slot[i]]' is not known: 'slot[i]' is loaded from memory: data-dependent

// Already accumulating in a register: nothing to do.
__global__ void in_register(const float *a, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float s = 0.f;
  for (int k = 0; k < n; ++k)
    s += a[(size_t)k * n + i];
  out[i] = s;
}
// NONE: not applicable: no loop reads and writes one memory element ('X[e] += v', 'X[e] = X[e] op v')

// A volatile element: every access must stay.
__global__ void volatile_acc(const float *a, volatile float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  for (int k = 0; k < n; ++k)
    out[i] += a[(size_t)k * n + i];
}
// VOLATILE: not applicable: 'out[i]' is volatile: every access must stay

void host(int n) {
  float *a, *y, *out, *log;
  int *ia, *iout, *slot;
  cudaMalloc(&a, sizeof(float) * n * n);
  cudaMalloc(&y, sizeof(float) * n);
  cudaMalloc(&out, sizeof(float) * n * n);
  cudaMalloc(&log, sizeof(float) * 2);
  cudaMalloc(&ia, sizeof(int) * n);
  cudaMalloc(&iout, sizeof(int) * n);
  cudaMalloc(&slot, sizeof(int) * n);
  moving<<<n / 256, 256>>>(a, out, n);
  self_read<<<n / 256, 256>>>(a, y, n);
  same_buffer<<<n / 256, 256>>>(a, a + 8 * n, n);
  synced<<<n / 256, 256>>>(a, out, n);
  early_return<<<n / 256, 256>>>(a, out, n, 1.f);
  data_guard<<<n / 256, 256>>>(a, out, n);
  atomics<<<n / 256, 256>>>(ia, iout, n);
  helper<<<n / 256, 256>>>(a, out, log, n);
  gathered<<<n / 256, 256>>>(a, slot, out, n);
  in_register<<<n / 256, 256>>>(a, out, n);
  volatile_acc<<<n / 256, 256>>>(a, out, n);
}
