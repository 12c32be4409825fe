// More of what CCCL 3.0 (CUDA 13.0) removed (the CCCL 2.x -> 3.0 migration
// guide; none of it is in 13.0's include/cccl): the CUB_MAX and CUB_MIN
// macros ("use the cuda::std::max(a, b) function instead"), which CCCL 2.x
// defined as ((b) > (a)) ? (b) : (a) and ((b) < (a)) ? (b) : (a), the values
// cuda::std::max and min return for operands of one scalar type: such a call
// is renamed (cccl3-macros.cu: two arithmetic types), and the output compiles
// with nvcc. Operands that are not both arithmetic, with side effects, or a
// name in a macro's body are reported with the reason. The base classes
// thrust::unary_function and binary_function ("just remove those base
// classes") are deleted, with the member typedefs they gave where the file
// names them. Reported with advice, no fix: cub::DeviceSpmv (use cuSPARSE)
// and the CUB iterators cccl3.cu does not cover.
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

__global__ void clamp(const int *in, int *out, float *f, int lo) {
  int i = threadIdx.x;
  out[i] = CUB_MAX(in[i], lo);
  // DIAG-DAG: cccl3-removed.cu:[[@LINE-1]]:12: error: 'CUB_MAX' was removed in CCCL 3.0 (CUDA 13.0) (deprecated since CCCL 2.8); use 'cuda::std::max', which returns the same value for two operands of one scalar type [cuda13-removed-api]
  // FIX: out[i] = cuda::std::max(in[i], lo);
  f[i] = CUB_MIN(f[i], 1.0f);
  // DIAG-DAG: cccl3-removed.cu:[[@LINE-1]]:10: error: 'CUB_MIN' was removed in CCCL 3.0 (CUDA 13.0) (deprecated since CCCL 2.8); use 'cuda::std::min', which returns the same value for two operands of one scalar type [cuda13-removed-api]
  // FIX: f[i] = cuda::std::min(f[i], 1.0f);
}

size_t bytes(size_t a, size_t b, const char *p, const char *q) {
  return CUB_MAX(a, b) + (CUB_MIN(p, q) - p);
  // DIAG-DAG: cccl3-removed.cu:[[@LINE-1]]:10: error: 'CUB_MAX' was removed
  // DIAG-DAG: cccl3-removed.cu:[[@LINE-2]]:27: error: 'CUB_MIN' was removed
  // FIX: return cuda::std::max(a, b) + (cuda::std::min(p, q) - p);
}

struct Square : thrust::unary_function<float, float> {
  // DIAG-DAG: cccl3-removed.cu:[[@LINE-1]]:25: error: 'thrust::unary_function' was removed in CCCL 3.0 (CUDA 13.0); remove the base class; declare in the functor any 'argument_type' or 'result_type' the code reads [cuda13-removed-api]
  // FIX: struct Square {
  // FIX-NEXT:   using argument_type = float;
  // FIX-NEXT:   using result_type = float;
  __host__ __device__ result_type operator()(argument_type v) const { return v * v; }
};

struct Add : public thrust::binary_function<int, int, int> {
  // DIAG-DAG: cccl3-removed.cu:[[@LINE-1]]:29: error: 'thrust::binary_function' was removed in CCCL 3.0 (CUDA 13.0); remove the base class; declare in the functor any 'first_argument_type', 'second_argument_type' or 'result_type' the code reads [cuda13-removed-api]
  // FIX: struct Add {
  // FIX-NEXT:   using result_type = int;
  __host__ __device__ int operator()(int a, int b) const { return a + b; }
};

struct Tag {};
// Private bases of a class: only the removed one goes, with its comma; the
// typedefs go in public, and what followed stays private.
class Offset : Tag, private thrust::unary_function<int, long> {
  // DIAG-DAG: cccl3-removed.cu:[[@LINE-1]]:37: error: 'thrust::unary_function' was removed
  // FIX: class Offset : Tag {
  // FIX-NEXT: public:
  // FIX-NEXT:   using argument_type = int;
  // FIX-NEXT:   using result_type = long;
  // FIX-NEXT: private:
  long base = 1;
public:
  __host__ __device__ long operator()(int v) const { return v + base; }
};

template <typename T>
struct Less : thrust::binary_function<T, T, bool>, Tag {
  // DIAG-DAG: cccl3-removed.cu:[[@LINE-1]]:23: error: 'thrust::binary_function' was removed
  // FIX: struct Less : Tag {
  __host__ __device__ bool operator()(const T &a, const T &b) const { return a < b; }
};

Square::result_type useFunctors(float x) {
  return Square{}(x) + Add{}(1, 2) + Offset{}(3) + Less<int>{}(1, 2);
}

#ifdef REPORT
#define LARGER(a, b) CUB_MAX(a, b)

int notRewritten(int n, int i, float *x) {
  int m = *CUB_MAX(x, &n);
  // REPORT-DAG: cccl3-removed.cu:[[@LINE-1]]:12: error: 'CUB_MAX' was removed in CCCL 3.0 (CUDA 13.0)
  // REPORT-DAG: cccl3-removed.cu:[[@LINE-2]]:12: note: not rewritten: the operands have different types ('float *' and 'int *') that are not both arithmetic; 'cuda::std::max' takes one type
  m += CUB_MIN(i++, n);
  // REPORT-DAG: cccl3-removed.cu:[[@LINE-1]]:8: note: not rewritten: an operand has side effects, and the macro evaluated one operand twice
  m += LARGER(i, n);
  // REPORT-DAG: cccl3-removed.cu:[[@LINE-9]]:22: note: not rewritten: the name is written inside a macro's body

  cub::DeviceSpmv::CsrMV(nullptr, *(size_t *)nullptr, x, &i, &i, x, x, n, n, n);
  // REPORT-DAG: cccl3-removed.cu:[[@LINE-1]]:8: error: 'cub::DeviceSpmv' was removed in CCCL 3.0 (CUDA 13.0); use cuSPARSE (cusparseSpMV with a CSR matrix from cusparseCreateCsr); CUB has no sparse matrix-vector product [cuda13-removed-api]
  // REPORT-DAG: cccl3-removed.cu:[[@LINE-2]]:8: note: not rewritten: nothing in CUDA 13 does the same under the same name and arguments
  // Clang's guess for the name is cub::DeviceScan, which has no CsrMV; the
  // removed iterators leave parse errors of their own after the name.
  // REPORT-DAG: cccl3-removed.cu:[[@LINE-5]]:20: error: no member named 'CsrMV' in 'cub::DeviceScan'
  cub::ConstantInputIterator<int> ones(1);
  // REPORT-DAG: cccl3-removed.cu:[[@LINE-1]]:8: error: 'cub::ConstantInputIterator' was removed in CCCL 3.0 (CUDA 13.0); use thrust::constant_iterator<T> (<thrust/iterator/constant_iterator.h>) [cuda13-removed-api]
  cub::TransformInputIterator<float, cuda::std::negate<float>, const float *> neg(x, {});
  // REPORT-DAG: cccl3-removed.cu:[[@LINE-1]]:8: error: 'cub::TransformInputIterator' was removed in CCCL 3.0 (CUDA 13.0); use thrust::transform_iterator<Op, It> (<thrust/iterator/transform_iterator.h>); its template arguments come in another order [cuda13-removed-api]
  cub::DiscardOutputIterator<> sink;
  // REPORT-DAG: cccl3-removed.cu:[[@LINE-1]]:8: error: 'cub::DiscardOutputIterator' was removed in CCCL 3.0 (CUDA 13.0); use thrust::discard_iterator<> (<thrust/iterator/discard_iterator.h>) [cuda13-removed-api]
  return m;
}

#endif

// BEFORE: error
// DIAG: cccl3-removed.cu: 8 error(s), 0 warning(s) for sm_90; 8 fixed; nvcc compiles the patched file for sm_90
// REPORT: cccl3-removed.cu: 21 error(s) (15 from the passes, 6 from Clang's parse), 0 warning(s) for sm_90; 8 fixed (use -o, -i or --diff to apply)
