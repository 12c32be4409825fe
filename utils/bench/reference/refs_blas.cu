//===- refs_blas.cu - cuBLAS references: GEMMs and axpy --------------------===//
///
/// \file
/// The suite's GEMMs are row-major C = A B (alpha 1, beta 0). cuBLAS is
/// column-major, so the row-major product is computed as C^T = B^T A^T:
/// cublasXgemm(N, N, n, m, k, 1, B, n, A, k, 0, C, n). The handle uses
/// CUBLAS_DEFAULT_MATH (no TF32: the specs do not allow lower precision).
/// Results are checked on sampled elements against a double-precision dot
/// product on the host. The tensor-core references (sgemm_tf32, hgemm,
/// bgemm) are cublasGemmEx with TF32 compute on floats, and with f16 or
/// bf16 A, B and C summed in f32 (the templates' tf32 and half kernels).
///
//===----------------------------------------------------------------------===//
#include "refs.h"

#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <string>

namespace refs {
namespace {

void ckBlas(cublasStatus_t S, const char *What) {
  if (S != CUBLAS_STATUS_SUCCESS)
    throw Failure(std::string(What) + ": cuBLAS status " + std::to_string((int)S));
}

/// A cuBLAS handle on the bench's stream, default math (no TF32).
class Handle {
public:
  explicit Handle(cudaStream_t S) {
    ckBlas(cublasCreate(&H), "cublasCreate");
    ckBlas(cublasSetStream(H, S), "cublasSetStream");
    ckBlas(cublasSetMathMode(H, CUBLAS_DEFAULT_MATH), "cublasSetMathMode");
  }
  ~Handle() { cublasDestroy(H); }
  Handle(const Handle &) = delete;
  Handle &operator=(const Handle &) = delete;
  operator cublasHandle_t() const { return H; }

private:
  cublasHandle_t H = nullptr;
};

double toDouble(float V) { return V; }
double toDouble(double V) { return V; }
double toDouble(__half V) { return __half2float(V); }
double toDouble(__nv_bfloat16 V) { return __bfloat162float(V); }

/// Checks Count sampled elements of the row-major Batch x (M x N) product
/// C = A B (A: M x K, B: K x N, each matrix of a batch contiguous).
template <typename T>
std::string checkGemm(const DevBuf<T> &A, const DevBuf<T> &B,
                      const DevBuf<T> &C, long long Batch, long long M,
                      long long N, long long K, double Tol) {
  std::vector<size_t> Idx = sampleIndices(Batch * M * N, 256, 11);
  std::vector<T> Got = readAt(C.get(), Idx), Ha = A.toHost(), Hb = B.toHost();
  std::vector<double> G, W;
  for (size_t J = 0; J < Idx.size(); ++J) {
    long long Bt = Idx[J] / (M * N), R = Idx[J] % (M * N) / N,
              Col = Idx[J] % N;
    double Dot = 0;
    for (long long P = 0; P < K; ++P)
      Dot += toDouble(Ha[Bt * M * K + R * K + P]) *
             toDouble(Hb[Bt * K * N + P * N + Col]);
    G.push_back(toDouble(Got[J]));
    W.push_back(Dot);
  }
  return compareRelL2(G, W, Tol);
}

std::string dims(long long M, long long N, long long K) {
  return std::to_string(M) + "x" + std::to_string(N) + "x" + std::to_string(K);
}

template <typename T> __global__ void narrowKernel(const float *In, T *Out, size_t N) {
  for (size_t I = blockIdx.x * (size_t)blockDim.x + threadIdx.x; I < N;
       I += (size_t)gridDim.x * blockDim.x)
    Out[I] = T(In[I]);
}

/// Uniform inputs in [-1, 1) of T: floats, then rounded to T on the device.
template <typename T> void fillLowp(DevBuf<T> &B, uint64_t Seed, cudaStream_t S) {
  if constexpr (std::is_same_v<T, float>) {
    fillUniform(B.get(), B.size(), -1, 1, Seed, S);
  } else {
    DevBuf<float> F(B.size());
    fillUniform(F.get(), F.size(), -1, 1, Seed, S);
    narrowKernel<T><<<1024, 256, 0, S>>>(F.get(), B.get(), B.size());
    check(cudaGetLastError(), "input fill");
    check(cudaStreamSynchronize(S), "input fill");
  }
}

/// cublasGemmEx on row-major T (alpha 1, beta 0, f32 scalars) with
/// Compute; Op names the reference, Tol the check's relative L2 bound.
template <typename T>
void runGemmEx(Bench &Bn, const Sizes &S, const char *Op, cudaDataType Type,
               cublasComputeType_t Compute, const char *What, double Tol) {
  long long M = sizeOf(S, "M"), N = sizeOf(S, "N"), K = sizeOf(S, "K");
  DevBuf<T> A(M * K), B(K * N), C(M * N);
  fillLowp(A, Bn.options().Seed, Bn.stream());
  fillLowp(B, Bn.options().Seed + 1, Bn.stream());
  Handle H(Bn.stream());
  const float One = 1, Zero = 0;
  Stats Tm = Bn.time([&] {
    ckBlas(cublasGemmEx(H, CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &One, B.get(), Type, N,
                        A.get(), Type, K, &Zero, C.get(), Type, N, Compute,
                        CUBLAS_GEMM_DEFAULT),
           "cublasGemmEx");
  });
  std::string Ok = "skipped";
  if (Bn.options().Check) {
    check(cudaStreamSynchronize(Bn.stream()), "cublasGemmEx");
    Ok = checkGemm(A, B, C, 1, M, N, K, Tol);
  }
  Bn.report(Op, "cublasGemmEx",
            std::string("cublasGemmEx, row-major ") + dims(M, N, K) + " as C^T = B^T A^T, " + What,
            true, S, Tm, Ok);
}

} // namespace

void runSgemm(Bench &Bn, const Sizes &S) {
  long long M = sizeOf(S, "M"), N = sizeOf(S, "N"), K = sizeOf(S, "K");
  DevBuf<float> A(M * K), B(K * N), C(M * N);
  fillUniform(A.get(), A.size(), -1, 1, Bn.options().Seed, Bn.stream());
  fillUniform(B.get(), B.size(), -1, 1, Bn.options().Seed + 1, Bn.stream());
  Handle H(Bn.stream());
  const float One = 1, Zero = 0;
  Stats T = Bn.time([&] {
    ckBlas(cublasSgemm(H, CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &One, B.get(), N,
                       A.get(), K, &Zero, C.get(), N),
           "cublasSgemm");
  });
  std::string Ok = "skipped";
  if (Bn.options().Check) {
    check(cudaStreamSynchronize(Bn.stream()), "cublasSgemm");
    Ok = checkGemm(A, B, C, 1, M, N, K, 1e-4);
  }
  Bn.report("sgemm", "cublasSgemm",
            "cublasSgemm, row-major " + dims(M, N, K) + " as C^T = B^T A^T, "
            "default math (no TF32)",
            true, S, T, Ok);
}

void runDgemm(Bench &Bn, const Sizes &S) {
  long long M = sizeOf(S, "M"), N = sizeOf(S, "N"), K = sizeOf(S, "K");
  DevBuf<double> A(M * K), B(K * N), C(M * N);
  fillUniform(A.get(), A.size(), -1, 1, Bn.options().Seed, Bn.stream());
  fillUniform(B.get(), B.size(), -1, 1, Bn.options().Seed + 1, Bn.stream());
  Handle H(Bn.stream());
  const double One = 1, Zero = 0;
  Stats T = Bn.time([&] {
    ckBlas(cublasDgemm(H, CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &One, B.get(), N,
                       A.get(), K, &Zero, C.get(), N),
           "cublasDgemm");
  });
  std::string Ok = "skipped";
  if (Bn.options().Check) {
    check(cudaStreamSynchronize(Bn.stream()), "cublasDgemm");
    Ok = checkGemm(A, B, C, 1, M, N, K, 1e-12);
  }
  Bn.report("dgemm", "cublasDgemm",
            "cublasDgemm, row-major " + dims(M, N, K) + " as C^T = B^T A^T",
            true, S, T, Ok);
}

void runSgemmTf32(Bench &Bn, const Sizes &S) {
  runGemmEx<float>(Bn, S, "sgemm_tf32", CUDA_R_32F, CUBLAS_COMPUTE_32F_FAST_TF32,
                   "f32 data, TF32 tensor-core compute", 5e-3);
}

void runHgemm(Bench &Bn, const Sizes &S) {
  runGemmEx<__half>(Bn, S, "hgemm", CUDA_R_16F, CUBLAS_COMPUTE_32F,
                    "f16 A, B and C, f32 sums", 5e-3);
}

void runBgemm(Bench &Bn, const Sizes &S) {
  runGemmEx<__nv_bfloat16>(Bn, S, "bgemm", CUDA_R_16BF, CUBLAS_COMPUTE_32F,
                           "bf16 A, B and C, f32 sums", 2e-2);
}

void runSgemmBatched(Bench &Bn, const Sizes &S) {
  long long Batch = sizeOf(S, "BATCH"), N = sizeOf(S, "N");
  DevBuf<float> A(Batch * N * N), B(Batch * N * N), C(Batch * N * N);
  fillUniform(A.get(), A.size(), -1, 1, Bn.options().Seed, Bn.stream());
  fillUniform(B.get(), B.size(), -1, 1, Bn.options().Seed + 1, Bn.stream());
  Handle H(Bn.stream());
  const float One = 1, Zero = 0;
  long long Stride = N * N;
  Stats T = Bn.time([&] {
    ckBlas(cublasSgemmStridedBatched(H, CUBLAS_OP_N, CUBLAS_OP_N, N, N, N,
                                     &One, B.get(), N, Stride, A.get(), N,
                                     Stride, &Zero, C.get(), N, Stride, Batch),
           "cublasSgemmStridedBatched");
  });
  std::string Ok = "skipped";
  if (Bn.options().Check) {
    check(cudaStreamSynchronize(Bn.stream()), "cublasSgemmStridedBatched");
    Ok = checkGemm(A, B, C, Batch, N, N, N, 1e-4);
  }
  Bn.report("sgemm_batched", "cublasSgemmStridedBatched",
            "cublasSgemmStridedBatched, " + std::to_string(Batch) +
                " row-major " + dims(N, N, N) + " products, default math",
            true, S, T, Ok);
}

void runAxpy(Bench &Bn, const Sizes &S) {
  long long N = sizeOf(S, "N");
  DevBuf<float> X(N), Y(N);
  fillUniform(X.get(), N, -1, 1, Bn.options().Seed, Bn.stream());
  fillUniform(Y.get(), N, -1, 1, Bn.options().Seed + 1, Bn.stream());
  Handle H(Bn.stream());
  const float A = 2.5f;
  auto Call = [&] {
    ckBlas(cublasSaxpy(H, (int)N, &A, X.get(), 1, Y.get(), 1), "cublasSaxpy");
  };
  // The check is of one call on fresh inputs; the timed calls then keep
  // updating y in place (its values stay bounded: 2.5 x is added ~35 times).
  std::string Ok = "skipped";
  if (Bn.options().Check) {
    check(cudaStreamSynchronize(Bn.stream()), "input fill");
    std::vector<size_t> Idx = sampleIndices(N, 4096, 13);
    std::vector<float> Hx = readAt(X.get(), Idx), Hy = readAt(Y.get(), Idx);
    Call();
    check(cudaStreamSynchronize(Bn.stream()), "cublasSaxpy");
    std::vector<float> Got = readAt(Y.get(), Idx);
    std::vector<double> G(Got.begin(), Got.end()), W;
    for (size_t I = 0; I < Idx.size(); ++I)
      W.push_back(2.5 * Hx[I] + Hy[I]);
    Ok = compareRelL2(G, W, 1e-6);
  }
  Stats T = Bn.time(Call);
  Bn.report("axpy", "cublasSaxpy", "cublasSaxpy, y = 2.5 x + y in place", true,
            S, T, Ok);
  memcpyEquivalent(Bn, "axpy", S, 12 * N, false);
}

} // namespace refs
