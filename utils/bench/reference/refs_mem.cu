//===- refs_mem.cu - Memory-bound references: cudaMemcpy and float4 -------===//
///
/// \file
/// The library time of a streaming operation is that of cudaMemcpyAsync
/// device to device moving the same number of bytes (the spec's `bytes`,
/// read plus write): the GPU's own copy is the bandwidth any library call
/// can reach. copy is itself a cudaMemcpy. A float4 grid-stride kernel of
/// each operation, written for this suite, is reported beside it (not the
/// library time). axpy (cuBLAS) is in refs_blas.cu, gather and scatter
/// (Thrust) in refs_cub.cu.
///
//===----------------------------------------------------------------------===//
#include "refs.h"

#include <string>

namespace refs {

void memcpyEquivalent(Bench &B, const std::string &Op, const Sizes &S,
                      long long Bytes, bool Primary) {
  size_t Half = (size_t)(Bytes / 2) / 4 * 4;
  DevBuf<float> Src(Half / 4), Dst(Half / 4);
  fillUniform(Src.get(), Src.size(), -1, 1, B.options().Seed, B.stream());
  auto Call = [&] {
    check(cudaMemcpyAsync(Dst.get(), Src.get(), Half, cudaMemcpyDeviceToDevice,
                          B.stream()),
          "cudaMemcpyAsync");
  };
  Stats T = B.time(Call);
  std::string Ok = "skipped";
  if (B.options().Check) {
    check(cudaStreamSynchronize(B.stream()), "cudaMemcpyAsync");
    std::vector<size_t> Idx = sampleIndices(Src.size(), 4096, 3);
    Ok = readAt(Src.get(), Idx) == readAt(Dst.get(), Idx)
             ? "ok"
             : "failed: the copy differs";
  }
  B.report(Op, "cudaMemcpy-equivalent",
           "cudaMemcpyAsync device to device of " + std::to_string(Half) +
               " bytes, which moves the " + std::to_string(Bytes) +
               " bytes (read + write) the operation must move",
           Primary, S, T, Ok);
}

namespace {

/// out = f(a, b) element-wise with float4 accesses, grid-stride; the tail
/// of a length that is not a multiple of 4 is done element by element.
template <typename F>
__global__ void vec4Kernel(const float *A, const float *Bv, float *Out,
                           size_t N, F Fn) {
  size_t N4 = N / 4;
  size_t Stride = (size_t)gridDim.x * blockDim.x;
  size_t I0 = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  const float4 *A4 = reinterpret_cast<const float4 *>(A);
  const float4 *B4 = reinterpret_cast<const float4 *>(Bv);
  float4 *O4 = reinterpret_cast<float4 *>(Out);
  for (size_t I = I0; I < N4; I += Stride) {
    float4 X = A4[I], Y = B4 ? B4[I] : make_float4(0, 0, 0, 0);
    O4[I] = make_float4(Fn(X.x, Y.x), Fn(X.y, Y.y), Fn(X.z, Y.z),
                        Fn(X.w, Y.w));
  }
  for (size_t I = N4 * 4 + I0; I < N; I += Stride)
    Out[I] = Fn(A[I], Bv ? Bv[I] : 0.0f);
}

struct CopyFn {
  __device__ float operator()(float X, float) const { return X; }
};
struct AddFn {
  __device__ float operator()(float X, float Y) const { return X + Y; }
};
struct ScaleFn {
  float A;
  __device__ float operator()(float X, float) const { return A * X; }
};
struct TriadFn {
  float S;
  __device__ float operator()(float B, float C) const { return B + S * C; }
};

int vecGrid() {
  int Dev = 0, Sms = 0;
  check(cudaGetDevice(&Dev), "cudaGetDevice");
  check(cudaDeviceGetAttribute(&Sms, cudaDevAttrMultiProcessorCount, Dev),
        "cudaDeviceGetAttribute(SMs)");
  return Sms * 8;
}

/// Times the float4 kernel of Fn over N elements (Two: it reads two inputs)
/// and checks sampled outputs against Host.
template <typename F, typename H>
void vec4Ref(Bench &B, const std::string &Op, const Sizes &S, size_t N,
             bool Two, F Fn, H Host, const char *Desc) {
  DevBuf<float> X(N), Y(Two ? N : 0), Out(N);
  fillUniform(X.get(), N, -1, 1, B.options().Seed, B.stream());
  if (Two)
    fillUniform(Y.get(), N, -1, 1, B.options().Seed + 1, B.stream());
  int Grid = vecGrid();
  const float *Yp = Two ? Y.get() : nullptr;
  Stats T = B.time([&] {
    vec4Kernel<<<Grid, 256, 0, B.stream()>>>(X.get(), Yp, Out.get(), N, Fn);
    check(cudaGetLastError(), "float4 kernel launch");
  });
  std::string Ok = "skipped";
  if (B.options().Check) {
    check(cudaStreamSynchronize(B.stream()), "float4 kernel");
    std::vector<size_t> Idx = sampleIndices(N, 4096, 7);
    std::vector<float> Hx = readAt(X.get(), Idx), Ho = readAt(Out.get(), Idx),
                       Hy = Two ? readAt(Y.get(), Idx)
                                : std::vector<float>(Idx.size());
    std::vector<double> Got(Ho.begin(), Ho.end()), Want;
    for (size_t I = 0; I < Idx.size(); ++I)
      Want.push_back(Host(Hx[I], Hy[I]));
    Ok = compareRelL2(Got, Want, 1e-6);
  }
  B.report(Op, "float4-kernel", Desc, false, S, T, Ok);
}

} // namespace

void runCopy(Bench &B, const Sizes &S) {
  long long N = sizeOf(S, "N");
  DevBuf<float> X(N), Y(N);
  fillUniform(X.get(), N, -1, 1, B.options().Seed, B.stream());
  Stats T = B.time([&] {
    check(cudaMemcpyAsync(Y.get(), X.get(), N * sizeof(float),
                          cudaMemcpyDeviceToDevice, B.stream()),
          "cudaMemcpyAsync");
  });
  std::string Ok = "skipped";
  if (B.options().Check) {
    check(cudaStreamSynchronize(B.stream()), "cudaMemcpyAsync");
    std::vector<size_t> Idx = sampleIndices(N, 4096, 5);
    Ok = readAt(X.get(), Idx) == readAt(Y.get(), Idx)
             ? "ok"
             : "failed: the copy differs";
  }
  B.report("copy", "cudaMemcpy", "cudaMemcpyAsync device to device, 4N bytes",
           true, S, T, Ok);
  vec4Ref(B, "copy", S, N, false, CopyFn{},
          [](float X, float) { return (double)X; },
          "grid-stride float4 copy kernel written for this suite");
}

void runAdd(Bench &B, const Sizes &S) {
  long long N = sizeOf(S, "N");
  memcpyEquivalent(B, "add", S, 12 * N, true);
  vec4Ref(B, "add", S, N, true, AddFn{},
          [](float X, float Y) { return (double)(X + Y); },
          "grid-stride float4 add kernel written for this suite");
}

void runScale(Bench &B, const Sizes &S) {
  long long N = sizeOf(S, "N");
  memcpyEquivalent(B, "scale", S, 8 * N, true);
  vec4Ref(B, "scale", S, N, false, ScaleFn{2.5f},
          [](float X, float) { return (double)(2.5f * X); },
          "grid-stride float4 scale kernel written for this suite");
}

void runTriad(Bench &B, const Sizes &S) {
  long long N = sizeOf(S, "N");
  memcpyEquivalent(B, "triad", S, 12 * N, true);
  vec4Ref(B, "triad", S, N, true, TriadFn{3.0f},
          [](float X, float Y) { return (double)X + 3.0 * Y; },
          "grid-stride float4 triad kernel written for this suite");
}

} // namespace refs
