//===- refs.h - Library references of the benchmark suite -----*- CUDA -*-===//
///
/// \file
/// What the translation units of `bench-refs` share: the options, the
/// timer (warm-up, an L2 flush before every repetition, CUDA events around
/// the call, median and spread), device buffers, input generators, the JSON
/// line every reference prints, and one entry point per operation. See
/// utils/bench/README.md for what each reference is and why.
///
//===----------------------------------------------------------------------===//
#ifndef FORGE_BENCH_REFS_H
#define FORGE_BENCH_REFS_H

#include <cuda_runtime.h>

#include <cstdint>
#include <functional>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace refs {

/// Problem sizes by the spec's names ("N", "M", "K", "H", "W", "BATCH").
using Sizes = std::map<std::string, long long>;

/// A failed CUDA, cuBLAS or CUB call, or a reference that computed a wrong
/// result: the operation is reported as failed and the next one runs.
struct Failure : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// Throws a Failure naming What when E is not cudaSuccess.
void check(cudaError_t E, const char *What);

struct Options {
  int Reps = 30;   ///< timed repetitions (at least 20)
  int Warmup = 3;  ///< untimed calls first
  bool Check = true;
  uint64_t Seed = 20261129;
};

/// Percentiles of one timer's repetitions.
struct Percentiles {
  double MedianNs = 0, P10Ns = 0, P90Ns = 0, MinNs = 0, MaxNs = 0;
};

/// The repetitions timed two ways: CUPTI kernel activity records summed
/// over the kernels the call launched (how forge-worker times kernels; the
/// primary figure), and CUDA events around the call (which include the gaps
/// between a library's kernels and the launch overhead).
struct Stats {
  Percentiles Cupti, Events;
  bool HasCupti = false;
  std::string CuptiError; ///< why there is no CUPTI figure
  int Reps = 0;
  /// The primary figure: CUPTI where it ran, else events.
  const Percentiles &primary() const { return HasCupti ? Cupti : Events; }
};

/// Times library calls on one stream by the suite's rules.
class Bench {
public:
  explicit Bench(const Options &O);
  ~Bench();
  Bench(const Bench &) = delete;
  Bench &operator=(const Bench &) = delete;

  /// The memsets that bracket each timed call in CUPTI's records.
  static constexpr size_t MarkerBytes = 4;
  static constexpr unsigned MarkerBegin = 0xB1, MarkerEnd = 0xE1;

  const Options &options() const { return Opts; }
  cudaStream_t stream() const { return Stream; }

  /// Warm-up, then options().Reps repetitions of: Prep (untimed; restores
  /// inputs an in-place call changed), a write of a buffer twice the L2
  /// size, then Op between two CUDA events on stream(), its kernels'
  /// CUPTI activity records summed.
  Stats time(const std::function<void()> &Op,
             const std::function<void()> &Prep = nullptr);

  /// Prints one JSON line: {"op", "ref", "desc", "primary", "sizes",
  /// "median_ns", "p10_ns", "p90_ns", "min_ns", "spread", "timer", "reps",
  /// "events": {"median_ns", ...}, ..., "check"}; median_ns and its
  /// siblings are CUPTI's where it ran ("timer": "cupti"). Check is "ok",
  /// "skipped" or "failed: why".
  void report(const std::string &Op, const std::string &Ref,
              const std::string &Desc, bool Primary, const Sizes &S,
              const Stats &T, const std::string &Check) const;

private:
  Options Opts;
  cudaStream_t Stream = nullptr;
  cudaEvent_t Start = nullptr, Stop = nullptr;
  void *Flush = nullptr;
  size_t FlushBytes = 0;
  void *Marker = nullptr;
};

/// A device array of N elements of T, freed on scope exit.
template <typename T> class DevBuf {
public:
  explicit DevBuf(size_t N) : Count(N) {
    check(cudaMalloc(&Ptr, (N ? N : 1) * sizeof(T)), "cudaMalloc");
  }
  ~DevBuf() { cudaFree(Ptr); }
  DevBuf(const DevBuf &) = delete;
  DevBuf &operator=(const DevBuf &) = delete;
  T *get() const { return Ptr; }
  size_t size() const { return Count; }
  std::vector<T> toHost() const {
    std::vector<T> H(Count);
    check(cudaMemcpy(H.data(), Ptr, Count * sizeof(T), cudaMemcpyDeviceToHost),
          "cudaMemcpy to host");
    return H;
  }

private:
  T *Ptr = nullptr;
  size_t Count;
};

/// The elements of the device array Dev at Idx (one small copy each: for
/// checks of a few thousand elements of arrays too large to copy whole).
template <typename T>
std::vector<T> readAt(const T *Dev, const std::vector<size_t> &Idx) {
  std::vector<T> Out(Idx.size());
  for (size_t I = 0; I < Idx.size(); ++I)
    check(cudaMemcpy(&Out[I], Dev + Idx[I], sizeof(T), cudaMemcpyDeviceToHost),
          "cudaMemcpy to host");
  return Out;
}

/// Device-side input generators (a hash of the index and the seed, so the
/// same seed gives the same inputs in every run).
void fillUniform(float *P, size_t N, float Lo, float Hi, uint64_t Seed,
                 cudaStream_t S);
void fillUniform(double *P, size_t N, double Lo, double Hi, uint64_t Seed,
                 cudaStream_t S);
/// Integers uniform in [Lo, Hi] (inclusive).
void fillUniformU32(unsigned *P, size_t N, unsigned Lo, unsigned Hi,
                    uint64_t Seed, cudaStream_t S);
void fillIota(unsigned *P, size_t N, cudaStream_t S);

/// Size Name of S; a Failure when it is missing or not positive.
long long sizeOf(const Sizes &S, const char *Name);

/// "ok", or "failed: ..." when the relative L2 error of Got against Want
/// (both as doubles) exceeds Tol.
std::string compareRelL2(const std::vector<double> &Got,
                         const std::vector<double> &Want, double Tol);

/// Up to Count indices spread over [0, N), the first and last included.
std::vector<size_t> sampleIndices(size_t N, size_t Count, uint64_t Seed);

/// Times cudaMemcpyAsync device-to-device of Bytes / 2 bytes, which moves
/// Bytes (read plus write): the time the bandwidth of the GPU's own copy
/// allows for an operation that must move Bytes. Reported as ref
/// "cudaMemcpy-equivalent" of Op.
void memcpyEquivalent(Bench &B, const std::string &Op, const Sizes &S,
                      long long Bytes, bool Primary);

// One entry point per operation (utils/bench/kernels/<op>.json).
void runCopy(Bench &, const Sizes &);
void runAdd(Bench &, const Sizes &);
void runScale(Bench &, const Sizes &);
void runTriad(Bench &, const Sizes &);
void runAxpy(Bench &, const Sizes &);
void runGather(Bench &, const Sizes &);
void runScatter(Bench &, const Sizes &);
void runSgemm(Bench &, const Sizes &);
void runDgemm(Bench &, const Sizes &);
void runSgemmBatched(Bench &, const Sizes &);
void runSgemmTf32(Bench &, const Sizes &);
void runHgemm(Bench &, const Sizes &);
void runBgemm(Bench &, const Sizes &);
void runStencil1d(Bench &, const Sizes &);
void runConv2d3x3(Bench &, const Sizes &);
void runConv2d5x5(Bench &, const Sizes &);
void runConv2d7x7(Bench &, const Sizes &);
void runConv2dSeparable(Bench &, const Sizes &);
void runReduceSum(Bench &, const Sizes &);
void runReduceMax(Bench &, const Sizes &);
void runReduceMin(Bench &, const Sizes &);
void runReduceArgmax(Bench &, const Sizes &);
void runScanInclusive(Bench &, const Sizes &);
void runRadixSort(Bench &, const Sizes &);
void runMergeSort(Bench &, const Sizes &);

} // namespace refs

#endif
