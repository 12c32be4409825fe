//===- refs_cub.cu - CUB and Thrust references ------------------------------===//
///
/// \file
/// Reductions, the inclusive scan and the sorts through CUB's device-wide
/// algorithms, gather and scatter through Thrust (CCCL, shipped with the
/// CUDA toolkit). Temporary storage is allocated once, before timing. The
/// sorts restore their random input before every repetition, untimed.
/// Thrust runs with the par_nosync policy so that no host synchronisation
/// sits between the two events.
///
//===----------------------------------------------------------------------===//
#include "refs.h"

#include <cub/device/device_merge_sort.cuh>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>
#include <thrust/execution_policy.h>
#include <thrust/gather.h>
#include <thrust/iterator/transform_iterator.h>
#include <thrust/scatter.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <string>

namespace refs {
namespace {

/// CUB's two-call protocol: the size query, one allocation, then the timed
/// calls with the same arguments.
class Temp {
public:
  ~Temp() { cudaFree(Ptr); }
  void allocate() { check(cudaMalloc(&Ptr, Bytes ? Bytes : 1), "cudaMalloc(temp)"); }
  void *Ptr = nullptr;
  size_t Bytes = 0;
};

struct LessU32 {
  __device__ bool operator()(unsigned A, unsigned B) const { return A < B; }
};

/// The scatter spec's destination: a bijection of [0, n) for n a power of
/// two (utils/bench/kernels/scatter.cu).
struct HashPerm {
  unsigned Mask;
  __host__ __device__ unsigned operator()(unsigned I) const {
    return (I * 2654435761u) & Mask;
  }
};

std::string size(long long N) { return std::to_string(N); }

template <typename Call>
void reduceRef(Bench &B, const Sizes &S, const char *Op, const char *Ref,
               float Lo, float Hi, float Init, Call &&C) {
  long long N = sizeOf(S, "N");
  DevBuf<float> X(N), Out(1);
  fillUniform(X.get(), N, Lo, Hi, B.options().Seed, B.stream());
  Temp T;
  check(C(nullptr, T.Bytes, X.get(), Out.get(), (int)N), Ref);
  T.allocate();
  Stats St = B.time([&] { check(C(T.Ptr, T.Bytes, X.get(), Out.get(), (int)N), Ref); });
  std::string Ok = "skipped";
  if (B.options().Check) {
    check(cudaStreamSynchronize(B.stream()), Ref);
    std::vector<float> H = X.toHost();
    float Got = Out.toHost()[0];
    if (std::string(Op) == "reduce_sum") {
      double Want = 0;
      for (float V : H)
        Want += V;
      Ok = compareRelL2({Got}, {Want}, 1e-4);
    } else {
      float Want = Init;
      for (float V : H)
        Want = std::string(Op) == "reduce_max" ? std::max(Want, V) : std::min(Want, V);
      Ok = Got == Want ? "ok" : "failed: " + std::to_string(Got) + " != " + std::to_string(Want);
    }
  }
  B.report(Op, Ref, std::string(Ref) + " over " + size(N) + " floats", true, S,
           St, Ok);
}

/// Times a sort of N random keys; Sort(Temp, Bytes, Keys, Scratch) leaves
/// the sorted keys where it returns.
template <typename SortFn>
void sortRef(Bench &B, const Sizes &S, const char *Op, const char *Ref,
             const std::string &Desc, SortFn &&Sort) {
  long long N = sizeOf(S, "N");
  DevBuf<unsigned> Input(N), Keys(N), Scratch(N);
  fillUniformU32(Input.get(), N, 0, 0xFFFFFFFFu, B.options().Seed, B.stream());
  Temp T;
  unsigned *Result = nullptr;
  check(Sort(nullptr, T.Bytes, Keys.get(), Scratch.get(), (int)N, &Result), Ref);
  T.allocate();
  auto Restore = [&] {
    check(cudaMemcpyAsync(Keys.get(), Input.get(), N * sizeof(unsigned),
                          cudaMemcpyDeviceToDevice, B.stream()),
          "restore keys");
  };
  Stats St = B.time(
      [&] { check(Sort(T.Ptr, T.Bytes, Keys.get(), Scratch.get(), (int)N, &Result), Ref); },
      Restore);
  std::string Ok = "skipped";
  if (B.options().Check) {
    check(cudaStreamSynchronize(B.stream()), Ref);
    std::vector<unsigned> Want = Input.toHost(), Got(N);
    check(cudaMemcpy(Got.data(), Result, N * sizeof(unsigned), cudaMemcpyDeviceToHost),
          "cudaMemcpy to host");
    std::sort(Want.begin(), Want.end());
    Ok = Got == Want ? "ok" : "failed: the keys differ from std::sort's";
  }
  B.report(Op, Ref, Desc, true, S, St, Ok);
}

} // namespace

void runReduceSum(Bench &B, const Sizes &S) {
  // Inputs in [0, 1), as the spec's: a sum that cancels has no meaningful
  // relative error.
  reduceRef(B, S, "reduce_sum", "cub::DeviceReduce::Sum", 0, 1, 0,
            [&](void *T, size_t &Bytes, const float *X, float *Out, int N) {
              return cub::DeviceReduce::Sum(T, Bytes, X, Out, N, B.stream());
            });
}

void runReduceMax(Bench &B, const Sizes &S) {
  reduceRef(B, S, "reduce_max", "cub::DeviceReduce::Max", -1, 1, -FLT_MAX,
            [&](void *T, size_t &Bytes, const float *X, float *Out, int N) {
              return cub::DeviceReduce::Max(T, Bytes, X, Out, N, B.stream());
            });
}

void runReduceMin(Bench &B, const Sizes &S) {
  reduceRef(B, S, "reduce_min", "cub::DeviceReduce::Min", -1, 1, FLT_MAX,
            [&](void *T, size_t &Bytes, const float *X, float *Out, int N) {
              return cub::DeviceReduce::Min(T, Bytes, X, Out, N, B.stream());
            });
}

void runReduceArgmax(Bench &B, const Sizes &S) {
  long long N = sizeOf(S, "N");
  DevBuf<float> X(N), Max(1);
  DevBuf<long long> Index(1);
  fillUniform(X.get(), N, -1, 1, B.options().Seed, B.stream());
  Temp T;
  const char *Ref = "cub::DeviceReduce::ArgMax";
  auto Call = [&](void *P) {
    return cub::DeviceReduce::ArgMax(P, T.Bytes, X.get(), Max.get(),
                                     Index.get(), N, B.stream());
  };
  check(Call(nullptr), Ref);
  T.allocate();
  Stats St = B.time([&] { check(Call(T.Ptr), Ref); });
  std::string Ok = "skipped";
  if (B.options().Check) {
    check(cudaStreamSynchronize(B.stream()), Ref);
    std::vector<float> H = X.toHost();
    long long Want = std::max_element(H.begin(), H.end()) - H.begin();
    long long Got = Index.toHost()[0];
    float GotMax = Max.toHost()[0];
    Ok = Got >= 0 && Got < N && H[Got] == H[Want] && GotMax == H[Want]
             ? "ok"
             : "failed: index " + std::to_string(Got) + ", expected " +
                   std::to_string(Want);
  }
  B.report("reduce_argmax", Ref,
           std::string(Ref) + " (value and int64 index) over " + size(N) +
               " floats",
           true, S, St, Ok);
}

void runScanInclusive(Bench &B, const Sizes &S) {
  long long N = sizeOf(S, "N");
  DevBuf<float> X(N), Y(N);
  fillUniform(X.get(), N, 0, 1, B.options().Seed, B.stream());
  Temp T;
  const char *Ref = "cub::DeviceScan::InclusiveSum";
  auto Call = [&](void *P) {
    return cub::DeviceScan::InclusiveSum(P, T.Bytes, X.get(), Y.get(), (int)N,
                                         B.stream());
  };
  check(Call(nullptr), Ref);
  T.allocate();
  Stats St = B.time([&] { check(Call(T.Ptr), Ref); });
  std::string Ok = "skipped";
  if (B.options().Check) {
    check(cudaStreamSynchronize(B.stream()), Ref);
    std::vector<float> Hx = X.toHost(), Hy = Y.toHost();
    std::vector<double> Got(Hy.begin(), Hy.end()), Want(N);
    double Run = 0;
    for (long long I = 0; I < N; ++I)
      Want[I] = Run += Hx[I];
    Ok = compareRelL2(Got, Want, 1e-4);
  }
  B.report("scan_inclusive", Ref, std::string(Ref) + " over " + size(N) + " floats",
           true, S, St, Ok);
}

void runRadixSort(Bench &B, const Sizes &S) {
  sortRef(B, S, "radix_sort", "cub::DeviceRadixSort::SortKeys",
          "cub::DeviceRadixSort::SortKeys of " + size(sizeOf(S, "N")) +
              " u32 keys, DoubleBuffer (keys and a scratch array, as the spec)",
          [&](void *T, size_t &Bytes, unsigned *Keys, unsigned *Scratch, int N,
              unsigned **Result) {
            cub::DoubleBuffer<unsigned> D(Keys, Scratch);
            cudaError_t E = cub::DeviceRadixSort::SortKeys(T, Bytes, D, N, 0, 32,
                                                           B.stream());
            *Result = D.Current();
            return E;
          });
}

void runMergeSort(Bench &B, const Sizes &S) {
  sortRef(B, S, "merge_sort", "cub::DeviceMergeSort::SortKeys",
          "cub::DeviceMergeSort::SortKeys of " + size(sizeOf(S, "N")) +
              " u32 keys in place",
          [&](void *T, size_t &Bytes, unsigned *Keys, unsigned *, int N,
              unsigned **Result) {
            *Result = Keys;
            return cub::DeviceMergeSort::SortKeys(T, Bytes, Keys, N, LessU32{},
                                                  B.stream());
          });
}

void runGather(Bench &B, const Sizes &S) {
  long long N = sizeOf(S, "N");
  DevBuf<float> X(N), Out(N);
  DevBuf<unsigned> Idx(N);
  fillUniform(X.get(), N, -1, 1, B.options().Seed, B.stream());
  fillUniformU32(Idx.get(), N, 0, (unsigned)(N - 1), B.options().Seed + 1,
                 B.stream());
  Stats St = B.time([&] {
    thrust::gather(thrust::cuda::par_nosync.on(B.stream()), Idx.get(),
                   Idx.get() + N, X.get(), Out.get());
    check(cudaGetLastError(), "thrust::gather");
  });
  std::string Ok = "skipped";
  if (B.options().Check) {
    check(cudaStreamSynchronize(B.stream()), "thrust::gather");
    std::vector<size_t> At = sampleIndices(N, 4096, 17);
    std::vector<unsigned> I = readAt(Idx.get(), At);
    std::vector<float> Got = readAt(Out.get(), At);
    std::vector<size_t> From(I.begin(), I.end());
    Ok = Got == readAt(X.get(), From) ? "ok" : "failed: out[i] != x[idx[i]]";
  }
  B.report("gather", "thrust::gather",
           "thrust::gather, out[i] = x[idx[i]], random indices", true, S, St, Ok);
  memcpyEquivalent(B, "gather", S, 12 * N, false);
}

void runScatter(Bench &B, const Sizes &S) {
  long long N = sizeOf(S, "N");
  if (N & (N - 1))
    throw Failure("scatter: N must be a power of two (the destination is a "
                  "multiplicative hash modulo N)");
  DevBuf<float> X(N), Out(N);
  DevBuf<unsigned> Idx(N);
  fillUniform(X.get(), N, -1, 1, B.options().Seed, B.stream());
  fillIota(Idx.get(), N, B.stream());
  HashPerm P{(unsigned)(N - 1)};
  auto Map = thrust::make_transform_iterator(Idx.get(), P);
  Stats St = B.time([&] {
    thrust::scatter(thrust::cuda::par_nosync.on(B.stream()), X.get(),
                    X.get() + N, Map, Out.get());
    check(cudaGetLastError(), "thrust::scatter");
  });
  std::string Ok = "skipped";
  if (B.options().Check) {
    check(cudaStreamSynchronize(B.stream()), "thrust::scatter");
    std::vector<size_t> At = sampleIndices(N, 4096, 19), To;
    for (size_t I : At)
      To.push_back(P((unsigned)I));
    Ok = readAt(X.get(), At) == readAt(Out.get(), To)
             ? "ok"
             : "failed: out[dst(i)] != x[i]";
  }
  B.report("scatter", "thrust::scatter",
           "thrust::scatter through the spec's hashed permutation of idx", true,
           S, St, Ok);
  memcpyEquivalent(B, "scatter", S, 12 * N, false);
}

} // namespace refs
