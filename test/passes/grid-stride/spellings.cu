// REQUIRES: cuda
// The elementwise map in the spellings people write: an early exit, a
// compound guard, the index through locals, size_t, a bound in a struct or
// a min(...), double and int elements, a template. Each becomes a
// grid-stride loop whose per-element conditions stay per element, and each
// result compiles with nvcc.

// RUN: forge-port propose %s --kernel early_exit --rules=grid-stride --apply -o %t.early_exit.cu 2>&1 | FileCheck %s --check-prefix=NOTE-EARLY-EXIT
// RUN: FileCheck %s --check-prefix=EARLY-EXIT --match-full-lines --input-file=%t.early_exit.cu
// RUN: %nvcc -arch=sm_90 -ptx %t.early_exit.cu -o /dev/null
// RUN: forge-port propose %s --kernel flag_guard --rules=grid-stride --apply -o %t.flag_guard.cu 2>&1 | FileCheck %s --check-prefix=NOTE-FLAG-GUARD
// RUN: FileCheck %s --check-prefix=FLAG-GUARD --match-full-lines --input-file=%t.flag_guard.cu
// RUN: %nvcc -arch=sm_90 -ptx %t.flag_guard.cu -o /dev/null
// RUN: forge-port propose %s --kernel positive_only --rules=grid-stride --apply -o %t.positive_only.cu 2>&1 | FileCheck %s --check-prefix=NOTE-POSITIVE-ONLY
// RUN: FileCheck %s --check-prefix=POSITIVE-ONLY --match-full-lines --input-file=%t.positive_only.cu
// RUN: %nvcc -arch=sm_90 -ptx %t.positive_only.cu -o /dev/null
// RUN: forge-port propose %s --kernel through_locals --rules=grid-stride --apply -o %t.through_locals.cu 2>&1 | FileCheck %s --check-prefix=NOTE-THROUGH-LOCALS
// RUN: FileCheck %s --check-prefix=THROUGH-LOCALS --match-full-lines --input-file=%t.through_locals.cu
// RUN: %nvcc -arch=sm_90 -ptx %t.through_locals.cu -o /dev/null
// RUN: forge-port propose %s --kernel size_t_exit --rules=grid-stride --apply -o %t.size_t_exit.cu 2>&1 | FileCheck %s --check-prefix=NOTE-SIZE-T-EXIT
// RUN: FileCheck %s --check-prefix=SIZE-T-EXIT --match-full-lines --input-file=%t.size_t_exit.cu
// RUN: %nvcc -arch=sm_90 -ptx %t.size_t_exit.cu -o /dev/null
// RUN: forge-port propose %s --kernel in_struct --rules=grid-stride --apply -o %t.in_struct.cu 2>&1 | FileCheck %s --check-prefix=NOTE-IN-STRUCT
// RUN: FileCheck %s --check-prefix=IN-STRUCT --match-full-lines --input-file=%t.in_struct.cu
// RUN: %nvcc -arch=sm_90 -ptx %t.in_struct.cu -o /dev/null
// RUN: forge-port propose %s --kernel min_bound --rules=grid-stride --apply -o %t.min_bound.cu 2>&1 | FileCheck %s --check-prefix=NOTE-MIN-BOUND
// RUN: FileCheck %s --check-prefix=MIN-BOUND --match-full-lines --input-file=%t.min_bound.cu
// RUN: %nvcc -arch=sm_90 -ptx %t.min_bound.cu -o /dev/null
// RUN: forge-port propose %s --kernel masked_exit --rules=grid-stride --apply -o %t.masked_exit.cu 2>&1 | FileCheck %s --check-prefix=NOTE-MASKED-EXIT
// RUN: FileCheck %s --check-prefix=MASKED-EXIT --match-full-lines --input-file=%t.masked_exit.cu
// RUN: %nvcc -arch=sm_90 -ptx %t.masked_exit.cu -o /dev/null
// RUN: forge-port propose %s --kernel twice --rules=grid-stride --apply -o %t.twice.cu 2>&1 | FileCheck %s --check-prefix=NOTE-TWICE
// RUN: FileCheck %s --check-prefix=TWICE --match-full-lines --input-file=%t.twice.cu
// RUN: %nvcc -arch=sm_90 -ptx %t.twice.cu -o /dev/null
// RUN: forge-port propose %s --kernel hash --rules=grid-stride --apply -o %t.hash.cu 2>&1 | FileCheck %s --check-prefix=NOTE-HASH
// RUN: FileCheck %s --check-prefix=HASH --match-full-lines --input-file=%t.hash.cu
// RUN: %nvcc -arch=sm_90 -ptx %t.hash.cu -o /dev/null

struct Params {
  int n;
  float s;
};

__global__ void early_exit(const float *x, float *y, float a, int n) {
  int i = threadIdx.x + blockDim.x * blockIdx.x;
  if (i >= n) return;
  float v = x[i];
  y[i] = a * v + y[i];
}

// EARLY-EXIT:      __global__ void early_exit(const float *x, float *y, float a, int n) {
// EARLY-EXIT-NEXT:   for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)blockDim.x * gridDim.x) {
// EARLY-EXIT-NEXT:     float v = x[i];
// EARLY-EXIT-NEXT:     y[i] = a * v + y[i];
// EARLY-EXIT-NEXT:   }
// EARLY-EXIT-NEXT: }

// NOTE-EARLY-EXIT: forge-port: note: applied expert:grid-stride: a grid-stride loop over 'i' instead of 'if (i >= n) return;'

__global__ void flag_guard(const float *x, float *y, int n, int flag) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && flag) y[i] = x[i] * 2.0f;
}

// FLAG-GUARD:      __global__ void flag_guard(const float *x, float *y, int n, int flag) {
// FLAG-GUARD-NEXT:   for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)blockDim.x * gridDim.x)
// FLAG-GUARD-NEXT:     if (flag) y[i] = x[i] * 2.0f;
// FLAG-GUARD-NEXT: }

// NOTE-FLAG-GUARD: forge-port: note: applied expert:grid-stride: a grid-stride loop over 'i' instead of 'if (i < n && flag)'

__global__ void positive_only(const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && x[i] > 0.f) {
    y[i] = x[i];
  }
}

// POSITIVE-ONLY:      __global__ void positive_only(const float *x, float *y, int n) {
// POSITIVE-ONLY-NEXT:   for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)blockDim.x * gridDim.x)
// POSITIVE-ONLY-NEXT:     if (x[i] > 0.f) {
// POSITIVE-ONLY-NEXT:       y[i] = x[i];
// POSITIVE-ONLY-NEXT:     }
// POSITIVE-ONLY-NEXT: }

// NOTE-POSITIVE-ONLY: forge-port: note: applied expert:grid-stride: a grid-stride loop over 'i' instead of 'if (i < n && x[i] > 0.f)'

__global__ void through_locals(const double *x, double *y, int n) {
  int tid = threadIdx.x;
  int gid = blockIdx.x * blockDim.x + tid;
  const double two = 2.0;
  if (gid < n) {
    y[gid] = two * x[gid];
  }
}

// THROUGH-LOCALS:      __global__ void through_locals(const double *x, double *y, int n) {
// THROUGH-LOCALS-NEXT:   int tid = threadIdx.x;
// THROUGH-LOCALS-NEXT:   const double two = 2.0;
// THROUGH-LOCALS-NEXT:   for (long long gid = (long long)blockIdx.x * blockDim.x + threadIdx.x; gid < n; gid += (long long)blockDim.x * gridDim.x) {
// THROUGH-LOCALS-NEXT:     y[gid] = two * x[gid];
// THROUGH-LOCALS-NEXT:   }
// THROUGH-LOCALS-NEXT: }

// NOTE-THROUGH-LOCALS: forge-port: note: applied expert:grid-stride: a grid-stride loop over 'gid' instead of 'if (gid < n)'

__global__ void size_t_exit(const int *x, int *y, size_t n) {
  const size_t idx = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (idx >= n) { return; }
  y[idx] = x[idx] + 1;
}

// SIZE-T-EXIT:      __global__ void size_t_exit(const int *x, int *y, size_t n) {
// SIZE-T-EXIT-NEXT:   for (size_t idx = (size_t)blockIdx.x * blockDim.x + threadIdx.x; idx < n; idx += (size_t)blockDim.x * gridDim.x) {
// SIZE-T-EXIT-NEXT:     y[idx] = x[idx] + 1;
// SIZE-T-EXIT-NEXT:   }
// SIZE-T-EXIT-NEXT: }

// NOTE-SIZE-T-EXIT: forge-port: note: applied expert:grid-stride: a grid-stride loop over 'idx' instead of 'if (idx >= n) return;'

__global__ void in_struct(const float *x, float *y, Params p) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < p.n) y[i] = p.s * x[i];
}

// IN-STRUCT:      __global__ void in_struct(const float *x, float *y, Params p) {
// IN-STRUCT-NEXT:   for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < p.n; i += (long long)blockDim.x * gridDim.x) y[i] = p.s * x[i];
// IN-STRUCT-NEXT: }

// NOTE-IN-STRUCT: forge-port: note: applied expert:grid-stride: a grid-stride loop over 'i' instead of 'if (i < p.n)'

__global__ void min_bound(const float *x, float *y, int n, int m) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < min(n, m)) y[i] = x[i];
}

// MIN-BOUND:      __global__ void min_bound(const float *x, float *y, int n, int m) {
// MIN-BOUND-NEXT:   for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < min(n, m); i += (long long)blockDim.x * gridDim.x) y[i] = x[i];
// MIN-BOUND-NEXT: }

// NOTE-MIN-BOUND: forge-port: note: applied expert:grid-stride: a grid-stride loop over 'i' instead of 'if (i < min(n, m))'

__global__ void masked_exit(const float *x, float *y, int n, const int *mask) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n || mask[i] == 0) return;
  y[i] = x[i];
}

// MASKED-EXIT:      __global__ void masked_exit(const float *x, float *y, int n, const int *mask) {
// MASKED-EXIT-NEXT:   for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)blockDim.x * gridDim.x) {
// MASKED-EXIT-NEXT:     if (mask[i] == 0) continue;
// MASKED-EXIT-NEXT:     y[i] = x[i];
// MASKED-EXIT-NEXT:   }
// MASKED-EXIT-NEXT: }

// NOTE-MASKED-EXIT: forge-port: note: applied expert:grid-stride: a grid-stride loop over 'i' instead of 'if (i >= n || mask[i] == 0) return;'

template <typename T>

__global__ void twice(const T *x, T *y, int n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i] + x[i];
}
template __global__ void twice<float>(const float *, float *, int);

// TWICE:      __global__ void twice(const T *x, T *y, int n) {
// TWICE-NEXT:   for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)blockDim.x * gridDim.x) y[i] = x[i] + x[i];
// TWICE-NEXT: }

// NOTE-TWICE: forge-port: note: applied expert:grid-stride: a grid-stride loop over 'i' instead of 'if (i < n)'

__global__ void hash(unsigned *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = (i * 2654435761u) ^ (i - 5u);
}

// HASH:      __global__ void hash(unsigned *y, int n) {
// HASH-NEXT:   for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)blockDim.x * gridDim.x) y[i] = (((int)i) * 2654435761u) ^ (((int)i) - 5u);
// HASH-NEXT: }

// NOTE-HASH: forge-port: note: applied expert:grid-stride: a grid-stride loop over 'i' instead of 'if (i < n)'
