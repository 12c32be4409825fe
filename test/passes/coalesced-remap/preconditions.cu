// REQUIRES: cuda
// Preconditions that fail, each with its reason; exit 1 and nothing on stdout.
// RUN: not forge-port propose %s --kernel c_scan --rules=coalesced-remap 2>&1 | FileCheck %s --check-prefix=SCAN
// RUN: not forge-port propose %s --kernel c_pos --rules=coalesced-remap 2>&1 | FileCheck %s --check-prefix=POS
// RUN: not forge-port propose %s --kernel c_neigh --rules=coalesced-remap 2>&1 | FileCheck %s --check-prefix=NEIGH
// RUN: not forge-port propose %s --kernel c_break --rules=coalesced-remap 2>&1 | FileCheck %s --check-prefix=BREAK
// RUN: not forge-port propose %s --kernel c_tid --rules=coalesced-remap 2>&1 | FileCheck %s --check-prefix=TID
// RUN: not forge-port propose %s --kernel c_runtime --rules=coalesced-remap 2>&1 | FileCheck %s --check-prefix=RUNTIME
// RUN: not forge-port propose %s --kernel c_whole --rules=coalesced-remap 2>&1 | FileCheck %s --check-prefix=WHOLE
// RUN: not forge-port propose %s --kernel c_atomic --rules=coalesced-remap 2>&1 | FileCheck %s --check-prefix=ATOMIC
// RUN: not forge-port propose %s --kernel c_scan --rules=coalesced-remap 2>/dev/null | count 0

// A running sum: each iteration depends on the one before.
__global__ void c_scan(const float *in, float *out, int n) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  float acc = 0.0f;
  for (int k = 0; k < 8; ++k) {
    int i = t * 8 + k;
    if (i < n) { acc += in[i]; out[i] = acc; }
  }
}
// SCAN: forge-port: note: coalesced-remap: not applicable: the chunk loop 'acc' carries a value from one iteration to the next (line [[@LINE-3]]): a running sum or a scan; the remap gives each element to another thread and step

// The position in the chunk is used as a value.
__global__ void c_pos(const float *in, float *out, int n) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  for (int k = 0; k < 8; ++k) {
    int i = t * 8 + k;
    if (i < n) out[i] = in[i] * k;
  }
}
// POS: forge-port: note: coalesced-remap: not applicable: the chunk loop uses 'k' other than through the element index (line [[@LINE-3]]); the remap gives each element to another thread and step

__global__ void c_neigh(const float *in, float *out, int n) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  for (int k = 0; k < 8; ++k) {
    int i = t * 8 + k;
    if (i + 1 < n) out[i] = in[i] + in[i + 1];
  }
}
// NEIGH: forge-port: note: coalesced-remap: not applicable: 'in[i + 1]' (line [[@LINE-3]]) is not the iteration's own element (out[i]): iterations would touch each other's elements

__global__ void c_break(const float *in, float *out, int n) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  for (int k = 0; k < 8; ++k) {
    int i = t * 8 + k;
    if (in[i] < 0) break;
    out[i] = in[i];
  }
}
// BREAK: forge-port: note: coalesced-remap: not applicable: the chunk loop may leave early (break, return or goto): its iterations depend on the ones before

// The thread's index as a value.
__global__ void c_tid(const float *in, float *out, int n) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  for (int k = 0; k < 8; ++k) {
    int i = t * 8 + k;
    if (i < n) out[i] = in[i] + t;
  }
}
// TID: forge-port: note: coalesced-remap: not applicable: the chunk loop uses 't', which varies between threads (line [[@LINE-3]]); the remap gives each element to another thread and step

// A chunk size known only at run time.
__global__ void c_runtime(const float *in, float *out, int n, int per) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  for (int k = 0; k < per; ++k) {
    int i = t * per + k;
    if (i < n) out[i] = in[i];
  }
}
// RUNTIME: forge-port: note: coalesced-remap: not applicable: the model recognises no per-thread chunk (thread t handling t*K + k for k in [0, K), with K known at compile time)

// Only whole chunks are processed: the guard on the chunk is no bound on
// its elements, and the remap would write the tail the kernel skips.
__global__ void c_whole(const float *in, float *out, int n) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  int base = t * 8;
  if (base + 8 > n) return;
  for (int k = 0; k < 8; ++k)
    out[base + k] = in[base + k];
}
// WHOLE: forge-port: note: coalesced-remap: not applicable: the chunk loop runs only where '{{.*}}', which varies between threads; the remap gives its elements to other threads

__global__ void c_atomic(const float *in, float *out, float *sum, int n) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  for (int k = 0; k < 8; ++k) {
    int i = t * 8 + k;
    if (i < n) { out[i] = in[i]; atomicAdd(sum, in[i]); }
  }
}
// ATOMIC: forge-port: note: coalesced-remap: not applicable: the kernel updates 'atomicAdd(sum, in[i])' (line [[@LINE-3]]) atomically
