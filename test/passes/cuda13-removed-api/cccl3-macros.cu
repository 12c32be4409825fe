// The rest of what CCCL 3.0 (CUDA 13.0) removed with a same-value
// replacement (the CCCL 2.x -> 3.0 migration guide; none of these names is
// in 13.0's include/cccl). CCCL 2.x's cub/util_macro.cuh defined
// CUB_QUOTIENT_FLOOR(x, y) as ((x) / (y)), CUB_QUOTIENT_CEILING(x, y) as
// (((x) + (y) - 1) / (y)), CUB_ROUND_UP_NEAREST(x, y) as
// ((((x) + (y) - 1) / (y)) * y) and CUB_ROUND_DOWN_NEAREST(x, y) as
// (((x) / (y)) * y): the floor becomes the division, the others
// cuda::ceil_div, cuda::round_up and cuda::round_down for integers of int's
// rank or above that are known to be >= 0 (and > 0 for the divisor: an
// unsigned type or a constant), their preconditions. CUB_MAX and CUB_MIN of
// two arithmetic types become cuda::std::max<T> and min<T> with T the type
// the macro's conditional had. cub::Swap, cub::CTA_SYNC, CTA_SYNC_AND,
// CTA_SYNC_OR and WARP_SYNC are renamed; the warp votes (arguments in the
// other order), cub::BAR and thrust::identity are reported. The output
// compiles with nvcc.
// REQUIRES: cuda
// RUN: not %nvcc -arch=sm_90 -c %s -o %t.orig.o 2>&1 | FileCheck %s --check-prefix=BEFORE
// RUN: forge-port port --checks=cuda13-removed-api --to sm_90 %s -o %t.cu > %t.log 2>&1
// RUN: FileCheck %s --check-prefix=DIAG --implicit-check-not='error:' --implicit-check-not='undeclared identifier' --input-file=%t.log
// RUN: FileCheck %s --check-prefix=FIX --match-full-lines --input-file=%t.cu
// RUN: %nvcc -arch=sm_90 -c %t.cu -o %t.o
// RUN: not forge-port port --checks=cuda13-removed-api --to sm_90 --no-validate %s -- -DREPORT > %t.report.log 2>&1
// RUN: FileCheck %s --check-prefix=REPORT --implicit-check-not='in namespace' --input-file=%t.report.log

#include <cub/cub.cuh>
#include <thrust/functional.h>

__global__ void tiles(const int *in, int *out, unsigned u, size_t n, float f) {
  int i = threadIdx.x;
  out[i] = CUB_MAX(in[i], u);
  // DIAG-DAG: cccl3-macros.cu:[[@LINE-1]]:12: error: 'CUB_MAX' was removed in CCCL 3.0 (CUDA 13.0) (deprecated since CCCL 2.8); use 'cuda::std::max', which returns the same value for two operands of one scalar type [cuda13-removed-api]
  // FIX: out[i] = cuda::std::max<unsigned int>(in[i], u);
  out[i] += CUB_MIN(f, i);
  // DIAG-DAG: cccl3-macros.cu:[[@LINE-1]]:13: error: 'CUB_MIN' was removed
  // FIX: out[i] += cuda::std::min<float>(f, i);
  out[i] += CUB_MAX(n, sizeof(int));
  // DIAG-DAG: cccl3-macros.cu:[[@LINE-1]]:13: error: 'CUB_MAX' was removed
  // FIX: out[i] += cuda::std::max(n, sizeof(int));
  out[i] += CUB_QUOTIENT_CEILING(n, 128);
  // DIAG-DAG: cccl3-macros.cu:[[@LINE-1]]:13: error: 'CUB_QUOTIENT_CEILING' was removed in CCCL 3.0 (CUDA 13.0) (deprecated since CCCL 2.8); use 'cuda::ceil_div', which returns the same value for integers a >= 0 and b > 0 (its preconditions) where the macro's arithmetic did not overflow [cuda13-removed-api]
  // FIX: out[i] += cuda::ceil_div(n, 128);
  out[i] += CUB_QUOTIENT_FLOOR(i + 1, 2) * 3;
  // DIAG-DAG: cccl3-macros.cu:[[@LINE-1]]:13: error: 'CUB_QUOTIENT_FLOOR' was removed in CCCL 3.0 (CUDA 13.0) (deprecated since CCCL 2.8); use 'a / b', the division the macro expanded to [cuda13-removed-api]
  // FIX: out[i] += (i + 1) / 2 * 3;
  out[i] = 7 % CUB_QUOTIENT_FLOOR(i + 1, 2);
  // DIAG-DAG: cccl3-macros.cu:[[@LINE-1]]:16: error: 'CUB_QUOTIENT_FLOOR' was removed
  // FIX: out[i] = 7 % ((i + 1) / 2);
  out[i] += CUB_ROUND_UP_NEAREST(u, 32);
  // DIAG-DAG: cccl3-macros.cu:[[@LINE-1]]:13: error: 'CUB_ROUND_UP_NEAREST' was removed in CCCL 3.0 (CUDA 13.0) (deprecated since CCCL 2.8); use 'cuda::round_up', which returns the same value
  // FIX: out[i] += cuda::round_up(u, 32);
  out[i] += CUB_ROUND_DOWN_NEAREST(n, 32u);
  // DIAG-DAG: cccl3-macros.cu:[[@LINE-1]]:13: error: 'CUB_ROUND_DOWN_NEAREST' was removed in CCCL 3.0 (CUDA 13.0) (deprecated since CCCL 2.8); use 'cuda::round_down', which returns the same value
  // FIX: out[i] += cuda::round_down(n, 32u);
}

__global__ void sync(int *a, int *b) {
  cub::Swap(*a, *b);
  // DIAG-DAG: cccl3-macros.cu:[[@LINE-1]]:8: error: 'cub::Swap' was removed in CCCL 3.0 (CUDA 13.0); use 'cuda::std::swap', which does the same [cuda13-removed-api]
  // FIX: cuda::std::swap(*a, *b);
  cub::CTA_SYNC();
  // DIAG-DAG: cccl3-macros.cu:[[@LINE-1]]:8: error: 'cub::CTA_SYNC' was removed in CCCL 3.0 (CUDA 13.0); use '__syncthreads', which does the same [cuda13-removed-api]
  // FIX: __syncthreads();
  int p = cub::CTA_SYNC_AND(*a > 0) + cub::CTA_SYNC_OR(*b > 0);
  // DIAG-DAG: cccl3-macros.cu:[[@LINE-1]]:16: error: 'cub::CTA_SYNC_AND' was removed in CCCL 3.0 (CUDA 13.0); use '__syncthreads_and', which does the same [cuda13-removed-api]
  // DIAG-DAG: cccl3-macros.cu:[[@LINE-2]]:44: error: 'cub::CTA_SYNC_OR' was removed in CCCL 3.0 (CUDA 13.0); use '__syncthreads_or', which does the same [cuda13-removed-api]
  // FIX: int p = __syncthreads_and(*a > 0) + __syncthreads_or(*b > 0);
  cub::WARP_SYNC(0xffffffffu);
  // DIAG-DAG: cccl3-macros.cu:[[@LINE-1]]:8: error: 'cub::WARP_SYNC' was removed in CCCL 3.0 (CUDA 13.0); use '__syncwarp', which does the same [cuda13-removed-api]
  // FIX: __syncwarp(0xffffffffu);
  *a = p;
}

#ifdef REPORT
int notRewritten(int n, int i, short h, unsigned *w) {
  int m = CUB_QUOTIENT_CEILING(n, 256);
  // REPORT-DAG: cccl3-macros.cu:[[@LINE-1]]:11: error: 'CUB_QUOTIENT_CEILING' was removed
  // REPORT-DAG: cccl3-macros.cu:[[@LINE-2]]:11: note: not rewritten: an operand is signed and not a constant; 'cuda::ceil_div' requires a >= 0 and b > 0, where the macro gave another value for negative ones; write cuda::ceil_div(n, 256) where they are known to hold
  m += CUB_ROUND_UP_NEAREST(w[0], 16 + 16);
  // REPORT-DAG: cccl3-macros.cu:[[@LINE-1]]:8: note: not rewritten: the macro multiplied by its second operand without parentheses ('* y'), so it did not compute what its name says for '16 + 16'
  m += CUB_ROUND_DOWN_NEAREST(h, 4);
  // REPORT-DAG: cccl3-macros.cu:[[@LINE-1]]:8: note: not rewritten: 'cuda::round_down' takes integers, and the macro computed in int or wider: an operand is not an integer of int's rank or above ('short', 'int')
  m += CUB_QUOTIENT_CEILING(1u, i++);
  // REPORT-DAG: cccl3-macros.cu:[[@LINE-1]]:8: note: not rewritten: an operand has side effects, and the macro evaluated its second operand more than once
  const long &r = CUB_MAX(n, 2L);
  // REPORT-DAG: cccl3-macros.cu:[[@LINE-1]]:19: note: not rewritten: a reference binds to the result, which 'cuda::std::max<long>' returns as a reference to a temporary
  *w = cub::WARP_BALLOT(m > 0, 0xffffffffu);
  // REPORT-DAG: cccl3-macros.cu:[[@LINE-1]]:13: error: 'cub::WARP_BALLOT' was removed in CCCL 3.0 (CUDA 13.0); use __ballot_sync(member_mask, predicate); its arguments come in the other order [cuda13-removed-api]
  cub::BAR(64);
  // REPORT-DAG: cccl3-macros.cu:[[@LINE-1]]:8: error: 'cub::BAR' was removed in CCCL 3.0 (CUDA 13.0); CCCL 3 has no replacement
  thrust::identity<int> id;
  // REPORT-DAG: cccl3-macros.cu:[[@LINE-1]]:11: error: 'thrust::identity' was removed in CCCL 3.0 (CUDA 13.0); use cuda::std::identity (<cuda/std/functional>); thrust::identity<T> converted its argument to T, so where it served as a cast, write a function object that casts [cuda13-removed-api]
  return m + r + id(1);
}
#endif

// BEFORE: error
// DIAG: cccl3-macros.cu: 13 error(s), 0 warning(s) for sm_90; 13 fixed; nvcc compiles the patched file for sm_90
// Clang's guess for thrust::identity is thrust::identity_, which has no
// call operator: its error is printed, and counted.
// REPORT: cccl3-macros.cu: 22 error(s) (21 from the passes, 1 from Clang's parse), 0 warning(s) for sm_90; 13 fixed
