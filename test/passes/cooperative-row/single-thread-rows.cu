// REQUIRES: cuda
// Rows walked by one thread of a block (a block per row, `threadIdx.x == 0`
// doing the whole row): the loop's accesses are broadcast, so there is no
// per-thread row; the block's threads now share the row by their linear
// index, combine within warps with masked shuffles (any block size) and
// across warps through shared memory, and the writes stay with the threads
// the guard lets through. Six spellings, every rewrite compiled with nvcc,
// and the declines with their reasons.

// RUN: forge-port propose %s --kernel rowsum --block 256 --rules=cooperative-row --apply -o %t.sum.cu 2>&1 | FileCheck %s --check-prefix=SUMNOTE
// RUN: FileCheck %s --check-prefix=SUM --match-full-lines --input-file=%t.sum.cu
// RUN: %nvcc -arch=sm_90 -ptx %t.sum.cu -o /dev/null
// SUMNOTE: forge-port: note: applied expert:cooperative-row: the block shares the row reduction (+) into 's' walked by one thread of the block ('threadIdx.x == 0') (a block reduction)
__global__ void rowsum(const float *a, float *out, int n) {
  int row = blockIdx.x;
  if (threadIdx.x == 0) {
    float s = 0;
    for (int k = 0; k < n; ++k) s += a[row * n + k];
    out[row] = s;
  }
}
// SUM:      __global__ void rowsum(const float *a, float *out, int n) {
// SUM-NEXT:   // cooperative-row: the block's threads share the row that one thread walked: the
// SUM-NEXT:   // thread of linear index lane takes the elements lane, lane + lanes, ... (coalesced).
// SUM-NEXT:   const int lane = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
// SUM-NEXT:   const int lanes = blockDim.x * blockDim.y * blockDim.z;
// SUM-NEXT:   // The lanes of this thread's warp (the block's last warp may be partial) and their mask.
// SUM-NEXT:   const int warp_lanes = lanes - lane / 32 * 32 < 32 ? lanes - lane / 32 * 32 : 32;
// SUM-NEXT:   const unsigned int warp_mask = warp_lanes == 32 ? 0xffffffffu : (1u << warp_lanes) - 1u;
// SUM-NEXT:   __shared__ float s_part[32];
// SUM-NEXT:   int row = blockIdx.x;
// SUM-NEXT:   // cooperative-row: every thread of the block runs this (it ran under 'threadIdx.x == 0');
// SUM-NEXT:   // the writes stay with the threads that pass that test.
// SUM-NEXT:   {
// SUM-NEXT:     float s = 0;
// SUM:              for (int k = 4 * lane; k + 3 < n; k += 4 * lanes) {
// SUM-NEXT:           const float4 a_v = *reinterpret_cast<const float4 *>(&a[row * n + k]);
// SUM:            for (int k = k_rest + lane; k < n; k += lanes) s += a[row * n + k];
// SUM-NEXT:     }
// SUM:          for (int offset = 16; offset > 0; offset /= 2) {
// SUM-NEXT:       const float s_other = __shfl_down_sync(warp_mask, s, offset);
// SUM-NEXT:       if (lane % 32 + offset < warp_lanes)
// SUM-NEXT:         s += s_other;
// SUM-NEXT:     }
// SUM-NEXT:     if (lane % 32 == 0) {
// SUM-NEXT:       s_part[lane / 32] = s;
// SUM-NEXT:     }
// SUM-NEXT:     __syncthreads();
// SUM-NEXT:     s = s_part[0];
// SUM-NEXT:     for (int w = 1; w < (lanes + 31) / 32; ++w)
// SUM-NEXT:       s += s_part[w];
// SUM-NEXT:     __syncthreads();
// SUM-NEXT:     if (threadIdx.x == 0)
// SUM-NEXT:       out[row] = s;
// SUM-NEXT:   }
// SUM-NEXT: }

// An early return first; the launch is unchanged (no spec change).
// RUN: forge-port propose %s --kernel early --block 96 --rules=cooperative-row > %t.early.props
// RUN: FileCheck %s --check-prefix=EARLYWHY --input-file=%t.early.props
// RUN: forge-port propose %s --kernel early --block 96 --rules=cooperative-row --apply -o %t.early.cu
// RUN: FileCheck %s --check-prefix=EARLY --match-full-lines --input-file=%t.early.cu
// RUN: %nvcc -arch=sm_90 -ptx %t.early.cu -o /dev/null
__global__ void early(const float *a, float *out, int m, int n) {
  if (threadIdx.x != 0) return;
  int row = blockIdx.x;
  if (row >= m) return;
  float s = 0;
  for (int k = 0; k < n; ++k)
    s += a[(size_t)row * n + k];
  out[row] = s;
}
// EARLYWHY: # expert:cooperative-row: the block shares the row reduction (+) into 's' walked by one thread of the block ('threadIdx.x == 0') (a block reduction)
// EARLYWHY: # {{.*}}Any block shape and size works{{.*}}the launch is unchanged.
// EARLYWHY-NOT: grid.x
// EARLY:        __shared__ float s_part[32];
// EARLY-NEXT:   // cooperative-row: every thread of the block runs what follows (it ran only where
// EARLY-NEXT:   // 'threadIdx.x == 0'); the writes stay with the threads that pass that test.
// EARLY-NEXT:   int row = blockIdx.x;
// EARLY-NEXT:   if (row >= m) return;
// EARLY-NEXT:   float s = 0;
// EARLY:          for (int k = k_rest + lane; k < n; k += lanes)
// EARLY-NEXT:       s += a[(size_t)row * n + k];
// EARLY:        if (threadIdx.x == 0)
// EARLY-NEXT:     out[row] = s;
// EARLY-NEXT: }

// `tid == 0` through a local, a max with fmaxf.
// RUN: forge-port propose %s --kernel tidmax --block 128 --rules=cooperative-row --apply -o %t.max.cu
// RUN: FileCheck %s --check-prefix=MAX --match-full-lines --input-file=%t.max.cu
// RUN: %nvcc -arch=sm_90 -ptx %t.max.cu -o /dev/null
__global__ void tidmax(const float *a, float *out, int m, int n) {
  int tid = threadIdx.x;
  int row = blockIdx.x;
  if (row >= m)
    return;
  if (tid == 0) {
    float best = -INFINITY;
    for (int k = 0; k < n; k++)
      best = fmaxf(best, a[(size_t)row * n + k]);
    out[row] = best;
  }
}
// MAX:          const float best_other = __shfl_down_sync(warp_mask, best, offset);
// MAX-NEXT:     if (lane % 32 + offset < warp_lanes)
// MAX-NEXT:       best = fmaxf(best, best_other);
// MAX:          best = fmaxf(best, best_part[w]);
// MAX:        if (tid == 0)
// MAX-NEXT:     out[row] = best;

// An argmax: the position travels with the value; the earlier among equals.
// RUN: forge-port propose %s --kernel argmax --block 256 --rules=cooperative-row --apply -o %t.arg.cu
// RUN: FileCheck %s --check-prefix=ARG --match-full-lines --input-file=%t.arg.cu
// RUN: %nvcc -arch=sm_90 -ptx %t.arg.cu -o /dev/null
__global__ void argmax(const float *a, int *idx, int n) {
  int row = blockIdx.x;
  if (threadIdx.x == 0) {
    float best = -INFINITY;
    int at = -1;
    for (int k = 0; k < n; ++k) {
      float v = a[row * n + k];
      if (v > best) {
        best = v;
        at = k;
      }
    }
    idx[row] = at;
  }
}
// ARG:        __shared__ float best_part[32];
// ARG-NEXT:   __shared__ int at_part[32];
// ARG:            const float best_other = __shfl_down_sync(warp_mask, best, offset);
// ARG-NEXT:       const int at_other = __shfl_down_sync(warp_mask, at, offset);
// ARG-NEXT:       if (lane % 32 + offset < warp_lanes) {
// ARG-NEXT:         if (best_other > best || (best_other == best && at_other < at)) {
// ARG:              if (best_part[w] > best || (best_part[w] == best && at_part[w] < at)) {
// ARG:          if (threadIdx.x == 0)
// ARG-NEXT:       idx[row] = at;

// A matrix-vector row through a row pointer, on a 2D grid, with the row's
// bound in the same condition: that part stays.
// RUN: forge-port propose %s --kernel matvec --block 256 --rules=cooperative-row --apply -o %t.mv.cu
// RUN: FileCheck %s --check-prefix=MV --match-full-lines --input-file=%t.mv.cu
// RUN: %nvcc -arch=sm_90 -ptx %t.mv.cu -o /dev/null
__global__ void matvec(const float *A, const float *x, float *y, int m, int n) {
  int row = blockIdx.y * gridDim.x + blockIdx.x;
  if (row < m && threadIdx.x == 0) {
    const float *r = A + (size_t)row * n;
    float acc = 0.0f;
    for (int k = 0; k < n; ++k)
      acc += r[k] * x[k];
    y[row] = acc;
  }
}
// MV:        // cooperative-row: every thread of the block runs this (it ran under 'row < m && threadIdx.x == 0');
// MV-NEXT:   // the writes stay with the threads that pass that test.
// MV-NEXT:   if (row < m) {
// MV:              if ((((unsigned long long)(&r[0]) | (unsigned long long)(&x[0])) & 15) == 0) {
// MV:                acc += r_v.x * x_v.x;
// MV:            for (int k = k_rest + lane; k < n; k += lanes)
// MV-NEXT:         acc += r[k] * x[k];
// MV:          if (row < m && threadIdx.x == 0)
// MV-NEXT:       y[row] = acc;

// Rows of a pitched array; a guard that the last test of the early exits.
// RUN: forge-port propose %s --kernel pitched --block 100 --rules=cooperative-row --apply -o %t.pitch.cu
// RUN: FileCheck %s --check-prefix=PITCH --match-full-lines --input-file=%t.pitch.cu
// RUN: %nvcc -arch=sm_90 -ptx %t.pitch.cu -o /dev/null
__global__ void pitched(const float *a, size_t pitch, float *out, int m, int n) {
  int row = blockIdx.x;
  if (row >= m || threadIdx.x > 0)
    return;
  const float *r = (const float *)((const char *)a + row * pitch);
  float s = 0;
  for (int k = 0; k < n; ++k)
    s += r[k];
  out[row] = s;
}
// PITCH:        // cooperative-row: every thread of the block runs what follows (it ran under 'row < m && threadIdx.x <= 0');
// PITCH-NEXT:   // the writes stay with the threads that pass that test.
// PITCH-NEXT:   if (row >= m)
// PITCH-NEXT:     return;
// PITCH:          for (int k = k_rest + lane; k < n; k += lanes)
// PITCH-NEXT:       s += r[k];
// PITCH:        if (row < m && threadIdx.x <= 0)
// PITCH-NEXT:     out[row] = s;

// A mean shared through a __shared__ scalar after a barrier: the guard's
// thread still writes it, the others read it after the barrier.
// RUN: forge-port propose %s --kernel center --block 256 --rules=cooperative-row --apply -o %t.center.cu
// RUN: FileCheck %s --check-prefix=CENTER --match-full-lines --input-file=%t.center.cu
// RUN: %nvcc -arch=sm_90 -ptx %t.center.cu -o /dev/null
__global__ void center(const float *a, float *y, int n) {
  __shared__ float mean;
  int row = blockIdx.x;
  if (threadIdx.x == 0) {
    float s = 0;
    for (int k = 0; k < n; ++k)
      s += a[row * n + k];
    mean = s / n;
  }
  __syncthreads();
  for (int k = threadIdx.x; k < n; k += blockDim.x)
    y[row * n + k] = a[row * n + k] - mean;
}
// CENTER:          if (threadIdx.x == 0)
// CENTER-NEXT:       mean = s / n;
// CENTER-NEXT:   }
// CENTER-NEXT:   __syncthreads();

// Declines, each with its reason.
// RUN: not forge-port propose %s --kernel writes_in_loop --block 256 --rules=cooperative-row 2>&1 | FileCheck %s --check-prefix=WRITES
// RUN: not forge-port propose %s --kernel decay --block 256 --rules=cooperative-row 2>&1 | FileCheck %s --check-prefix=DECAY
// RUN: not forge-port propose %s --kernel nobarrier --block 256 --rules=cooperative-row 2>&1 | FileCheck %s --check-prefix=NOBARRIER
// RUN: not forge-port propose %s --kernel otherwriter --block 256 --rules=cooperative-row 2>&1 | FileCheck %s --check-prefix=OTHER
// RUN: not forge-port propose %s --kernel ydim --block 32,4 --rules=cooperative-row 2>&1 | FileCheck %s --check-prefix=YDIM
// RUN: not forge-port propose %s --kernel elsebranch --block 256 --rules=cooperative-row 2>&1 | FileCheck %s --check-prefix=ELSE
// RUN: not forge-port propose %s --kernel everyone --block 256 --rules=cooperative-row 2>&1 | FileCheck %s --check-prefix=EVERYONE
// RUN: not forge-port propose %s --kernel lastthread --block 256 --rules=cooperative-row 2>&1 | FileCheck %s --check-prefix=LAST
// RUN: not forge-port propose %s --kernel sharedread --block 256 --rules=cooperative-row 2>&1 | FileCheck %s --check-prefix=SHARED
// RUN: not forge-port propose %s --kernel printer --block 256 --rules=cooperative-row 2>&1 | FileCheck %s --check-prefix=PRINTF
// RUN: not forge-port propose %s --kernel rowsum --block 1 --rules=cooperative-row 2>&1 | FileCheck %s --check-prefix=ONE

__global__ void writes_in_loop(const float *a, float *b, int n) {
  int row = blockIdx.x;
  if (threadIdx.x == 0)
    for (int k = 0; k < n; ++k)
      b[row * n + k] = 2.0f * a[row * n + k];
}
// WRITES: forge-port: note: cooperative-row: not applicable: the row loop over 'k' at line {{[0-9]+}} writes 'b[row * n + k]': the block's threads would share a row that is written as it is walked; only rows that are read are shared

__global__ void decay(const float *a, float *out, int n) {
  int row = blockIdx.x;
  if (threadIdx.x == 0) {
    float s = 0;
    for (int k = 0; k < n; ++k)
      s = s * 0.5f + a[row * n + k];
    out[row] = s;
  }
}
// DECAY: not applicable: the row loop over 'k' at line {{[0-9]+}} carries 's' from one iteration to the next, and it is not a reduction over this loop with an associative operator

__global__ void nobarrier(const float *a, float *out, float *y, int n) {
  int row = blockIdx.x;
  if (threadIdx.x == 0) {
    float s = 0;
    for (int k = 0; k < n; ++k)
      s += a[row * n + k];
    out[row] = s;
  }
  y[row * blockDim.x + threadIdx.x] = out[row];
}
// NOBARRIER: not applicable: 'out' is written in the guarded region and read by the block's other threads outside it (line {{[0-9]+}}) with no __syncthreads() between

__global__ void otherwriter(const float *a, float *out, int n) {
  int row = blockIdx.x;
  int tid = threadIdx.x;
  float s = 0;
  if (tid == 0)
    for (int k = 0; k < n; ++k)
      s += a[row * n + k];
  if (tid == 1)
    out[row] = s;
}
// OTHER: not applicable: 's' is computed in the guarded region and read outside it (line {{[0-9]+}}), where the threads the guard stops hold their own value

__global__ void ydim(const float *a, float *out, int n) {
  int row = blockIdx.x;
  if (threadIdx.x == 0) {
    float s = 0;
    for (int k = 0; k < n; ++k)
      s += a[(row * blockDim.y + threadIdx.y) * n + k];
    out[row * blockDim.y + threadIdx.y] = s;
  }
}
// YDIM: not applicable: the guarded region reads 'threadIdx.y' (line {{[0-9]+}}): the block's threads, which all run it now, would compute different values

__global__ void elsebranch(const float *a, float *out, float *z, int n) {
  int row = blockIdx.x;
  if (threadIdx.x == 0) {
    float s = 0;
    for (int k = 0; k < n; ++k)
      s += a[row * n + k];
    out[row] = s;
  } else {
    z[row * blockDim.x + threadIdx.x] = 0;
  }
}
// ELSE: not applicable: the row loop over 'k' at line {{[0-9]+}} is guarded by 'threadIdx.x == 0' at line {{[0-9]+}}, which has an else branch

__global__ void everyone(const float *a, float *out, int n) {
  int row = blockIdx.x;
  float s = 0;
  for (int k = 0; k < n; ++k)
    s += a[row * n + k];
  out[row] = s;
}
// EVERYONE: not applicable: the row loop over 'k' at line {{[0-9]+}} reads the same row in every thread of the block (its accesses are broadcast) and no condition on the thread picks one thread to walk it

__global__ void lastthread(const float *a, float *out, int n) {
  int row = blockIdx.x;
  if (threadIdx.x == blockDim.x - 1) {
    float s = 0;
    for (int k = 0; k < n; ++k)
      s += a[row * n + k];
    out[row] = s;
  }
}
// LAST: not applicable: the guard 'threadIdx.x == blockDim.x - 1' at line {{[0-9]+}} tests 'threadIdx.x == blockDim.x - 1', which the model cannot show thread 0 of every block to pass

__global__ void sharedread(const float *a, float *out, int n) {
  __shared__ float buf[1024];
  int row = blockIdx.x;
  buf[threadIdx.x] = a[row * n + threadIdx.x];
  if (threadIdx.x == 0) {
    float s = 0;
    for (int k = 0; k < n; ++k)
      s += a[row * n + k] * buf[k % 1024];
    out[row] = s;
  }
}
// SHARED: not applicable: 'buf' is read in the guarded region and written by the block's other threads outside it (line {{[0-9]+}}) with no __syncthreads() between

__global__ void printer(const float *a, float *out, int n) {
  int row = blockIdx.x;
  if (threadIdx.x == 0) {
    float s = 0;
    for (int k = 0; k < n; ++k)
      s += a[row * n + k];
    printf("%f\n", s);
    out[row] = s;
  }
}
// PRINTF: not applicable: the guarded region calls 'printf'

// ONE: not applicable: the block has 1 thread: the rewrite shares a row that one thread of a block walks among the block's threads, so it needs more of them
