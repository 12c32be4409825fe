// CCCL 3.0 (CUDA 13.0) removed CUB's functors, which CCCL 2.8 had deprecated
// for libcu++'s (<cccl/cub/thread/thread_operators.cuh> of 13.0 keeps
// ArgMax, ArgMin and CastOp only), and CUB's fancy iterators (13.0's
// cub/iterator/ has the arg-index, cache-modified and texture-object ones
// only). A use is Clang's "no member/type named 'Max' in namespace 'cub'",
// which the pass reports instead, as an error: a functor is renamed to the
// libcu++ one, which thread_operators.cuh (included by every CUB header that
// takes an operator) brings in; the output compiles with nvcc. An iterator
// is reported with the Thrust one to use, not rewritten.
// REQUIRES: cuda
// RUN: not %nvcc -arch=sm_90 -c %s -o %t.orig.o 2>&1 | FileCheck %s --check-prefix=BEFORE
// RUN: forge-port port --checks=cuda13-removed-api --to sm_90 %s -o %t.cu > %t.log 2>&1
// RUN: FileCheck %s --check-prefix=DIAG --implicit-check-not='in namespace' --input-file=%t.log
// RUN: FileCheck %s --check-prefix=FIX --match-full-lines --input-file=%t.cu
// RUN: %nvcc -arch=sm_90 -c %t.cu -o %t.o
// RUN: not forge-port port --checks=cuda13-removed-api --to sm_90 --no-validate %s -- -DITERATORS 2>&1 | FileCheck %s --check-prefix=ITER

#include <cub/cub.cuh>

// Spelled in a macro's body: renamed there, once for every use.
#define MAX_OP cub::Max()
// DIAG-DAG: cccl3.cu:[[@LINE-1]]:21: error: 'cub::Max' was removed in CCCL 3.0 (CUDA 13.0); use 'cuda::maximum<>', which does the same [cuda13-removed-api]
// FIX: #define MAX_OP cuda::maximum<>()

template <typename Op>
__global__ void blockReduce(const int *in, int *out, Op op) {
  using BlockReduce = cub::BlockReduce<int, 128>;
  __shared__ typename BlockReduce::TempStorage tmp;
  int v = BlockReduce(tmp).Reduce(in[threadIdx.x], op);
  if (threadIdx.x == 0)
    *out = v;
}

int run(const int *in, int *out, int n, cudaStream_t s) {
  void *tmp = nullptr;
  size_t bytes = 0;
  cub::DeviceReduce::Reduce(tmp, bytes, in, out, n, cub::Min{}, 0, s);
  // DIAG-DAG: cccl3.cu:[[@LINE-1]]:58: error: 'cub::Min' was removed in CCCL 3.0 (CUDA 13.0); use 'cuda::minimum<>', which does the same [cuda13-removed-api]
  // FIX: cub::DeviceReduce::Reduce(tmp, bytes, in, out, n, cuda::minimum<>{}, 0, s);
  cub::DeviceReduce::Reduce(tmp, bytes, in, out, n, MAX_OP, 0, s);
  // Clang's guess for cub::Max() is the host max(a, b), called with no
  // arguments: its error, printed but not counted, goes with the fix.
  // DIAG-DAG: cccl3.cu:[[@LINE-3]]:53: error: too few arguments to function call, expected 2, have 0
  ::cub::Sum sum;
  // DIAG-DAG: cccl3.cu:[[@LINE-1]]:10: error: 'cub::Sum' was removed in CCCL 3.0 (CUDA 13.0); use 'cuda::std::plus<>', which does the same [cuda13-removed-api]
  // FIX: cuda::std::plus<> sum;
  blockReduce<<<1, 128, 0, s>>>(in, out, sum);
  cub::Equality eq;
  // DIAG-DAG: cccl3.cu:[[@LINE-1]]:8: error: 'cub::Equality' was removed in CCCL 3.0 (CUDA 13.0); use 'cuda::std::equal_to<>', which does the same
  // FIX: cuda::std::equal_to<> eq;
  cub::Inequality ne;
  // DIAG-DAG: cccl3.cu:[[@LINE-1]]:8: error: 'cub::Inequality' was removed in CCCL 3.0 (CUDA 13.0); use 'cuda::std::not_equal_to<>', which does the same
  // FIX: cuda::std::not_equal_to<> ne;
  cub::Difference minus;
  // DIAG-DAG: cccl3.cu:[[@LINE-1]]:8: error: 'cub::Difference' was removed in CCCL 3.0 (CUDA 13.0); use 'cuda::std::minus<>', which does the same
  // FIX: cuda::std::minus<> minus;
  cub::Division divides;
  // DIAG-DAG: cccl3.cu:[[@LINE-1]]:8: error: 'cub::Division' was removed in CCCL 3.0 (CUDA 13.0); use 'cuda::std::divides<>', which does the same
  // FIX: cuda::std::divides<> divides;
  // Kept in CCCL 3: untouched.
  cub::ArgMax argmax;
  // FIX: cub::ArgMax argmax;
  (void)argmax;
#ifdef ITERATORS
  cub::CountingInputIterator<int> it(0);
  // ITER: cccl3.cu:[[@LINE-1]]:8: error: 'cub::CountingInputIterator' was removed in CCCL 3.0 (CUDA 13.0); use thrust::counting_iterator<T> (<thrust/iterator/counting_iterator.h>) [cuda13-removed-api]
  // ITER: note: not rewritten: nothing in CUDA 13 does the same under the same name and arguments
#endif
  return eq(1, 2) + ne(1, 2) + minus(5, 3) + divides(6, 3);
}

// BEFORE: error
// DIAG: cccl3.cu: 7 error(s), 0 warning(s) for sm_90; 7 fixed; nvcc compiles the patched file for sm_90
