//===- refs_main.cu - bench-refs: library references, timed ---------------===//
///
/// \file
/// `bench-refs` times the library reference of each operation of the
/// benchmark suite (utils/bench/kernels) by the project's measurement rules
/// and prints one JSON line per reference:
///
///   bench-refs [--op NAME[,NAME...]] [--sizes K=V[,K=V...]] [--reps N]
///              [--warmup N] [--seed S] [--no-check] [--list]
///
/// Without --op every operation runs at its spec's sizes. Timing: warm-up
/// calls, then --reps (default 30, at least 20) repetitions, each after an
/// untimed restore of in-place inputs and a write of a buffer twice the L2
/// size, timed as the suite's kernels are (forge-worker): CUPTI kernel
/// activity records, summed over the kernels the library call launched;
/// and, as a second column, CUDA events around the call on one stream
/// (which include the gaps between a library's kernels). Reported for
/// each: median, 10th and 90th percentiles, spread = (p90 - p10) / median. Each
/// reference's result is checked against a simple host computation unless
/// --no-check. Exit status: 0 when every reference ran and passed its
/// check, 1 otherwise, 2 for usage errors.
///
/// This file: options, the timer, inputs, output and the table of
/// operations; refs_mem.cu, refs_blas.cu, refs_cub.cu and refs_conv.cu hold
/// the references.
///
//===----------------------------------------------------------------------===//
#include "refs.h"

#include "../../../tools/forge-worker/Cupti.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>

namespace refs {

void check(cudaError_t E, const char *What) {
  if (E != cudaSuccess)
    throw Failure(std::string(What) + ": " + cudaGetErrorName(E) + ": " +
                  cudaGetErrorString(E));
}

//===----------------------------------------------------------------------===//
// Inputs
//===----------------------------------------------------------------------===//

namespace {

__host__ __device__ inline uint64_t mix(uint64_t X) {
  X += 0x9E3779B97F4A7C15ull;
  X = (X ^ (X >> 30)) * 0xBF58476D1CE4E5B9ull;
  X = (X ^ (X >> 27)) * 0x94D049BB133111EBull;
  return X ^ (X >> 31);
}

template <typename T>
__global__ void uniformKernel(T *P, size_t N, T Lo, T Hi, uint64_t Seed) {
  for (size_t I = blockIdx.x * (size_t)blockDim.x + threadIdx.x; I < N;
       I += (size_t)gridDim.x * blockDim.x) {
    double U = (mix(Seed ^ mix(I)) >> 11) * (1.0 / 9007199254740992.0);
    T V = (T)(Lo + (Hi - Lo) * U);
    P[I] = V < Hi ? V : Lo; // rounding must not reach Hi
  }
}

__global__ void uniformU32Kernel(unsigned *P, size_t N, unsigned Lo,
                                 unsigned Hi, uint64_t Seed) {
  uint64_t Range = (uint64_t)Hi - Lo + 1;
  for (size_t I = blockIdx.x * (size_t)blockDim.x + threadIdx.x; I < N;
       I += (size_t)gridDim.x * blockDim.x)
    P[I] = (unsigned)(Lo + mix(Seed ^ mix(I)) % Range);
}

__global__ void iotaKernel(unsigned *P, size_t N) {
  for (size_t I = blockIdx.x * (size_t)blockDim.x + threadIdx.x; I < N;
       I += (size_t)gridDim.x * blockDim.x)
    P[I] = (unsigned)I;
}

const int FillGrid = 4096, FillBlock = 256;

} // namespace

void fillUniform(float *P, size_t N, float Lo, float Hi, uint64_t Seed,
                 cudaStream_t S) {
  uniformKernel<float><<<FillGrid, FillBlock, 0, S>>>(P, N, Lo, Hi, Seed);
  check(cudaGetLastError(), "input fill");
}

void fillUniform(double *P, size_t N, double Lo, double Hi, uint64_t Seed,
                 cudaStream_t S) {
  uniformKernel<double><<<FillGrid, FillBlock, 0, S>>>(P, N, Lo, Hi, Seed);
  check(cudaGetLastError(), "input fill");
}

void fillUniformU32(unsigned *P, size_t N, unsigned Lo, unsigned Hi,
                    uint64_t Seed, cudaStream_t S) {
  uniformU32Kernel<<<FillGrid, FillBlock, 0, S>>>(P, N, Lo, Hi, Seed);
  check(cudaGetLastError(), "input fill");
}

void fillIota(unsigned *P, size_t N, cudaStream_t S) {
  iotaKernel<<<FillGrid, FillBlock, 0, S>>>(P, N);
  check(cudaGetLastError(), "input fill");
}

long long sizeOf(const Sizes &S, const char *Name) {
  auto It = S.find(Name);
  if (It == S.end() || It->second <= 0)
    throw Failure(std::string("size '") + Name + "' is missing or not positive");
  return It->second;
}

std::string compareRelL2(const std::vector<double> &Got,
                         const std::vector<double> &Want, double Tol) {
  double Num = 0, Den = 0;
  for (size_t I = 0; I < Want.size(); ++I) {
    if (!std::isfinite(Got[I]))
      return "failed: element " + std::to_string(I) + " is not finite";
    Num += (Got[I] - Want[I]) * (Got[I] - Want[I]);
    Den += Want[I] * Want[I];
  }
  double Rel = Den > 0 ? std::sqrt(Num / Den) : std::sqrt(Num);
  if (Rel <= Tol)
    return "ok";
  char Buf[96];
  std::snprintf(Buf, sizeof Buf, "failed: relative L2 error %.3g > %.3g", Rel,
                Tol);
  return Buf;
}

std::vector<size_t> sampleIndices(size_t N, size_t Count, uint64_t Seed) {
  std::vector<size_t> Idx;
  if (N == 0)
    return Idx;
  Idx.push_back(0);
  Idx.push_back(N - 1);
  for (size_t I = 2; I < Count && I < N; ++I)
    Idx.push_back(mix(Seed + I) % N);
  return Idx;
}

//===----------------------------------------------------------------------===//
// The timer
//===----------------------------------------------------------------------===//

Bench::Bench(const Options &O) : Opts(O) {
  check(cudaStreamCreateWithFlags(&Stream, cudaStreamNonBlocking),
        "cudaStreamCreate");
  check(cudaEventCreate(&Start), "cudaEventCreate");
  check(cudaEventCreate(&Stop), "cudaEventCreate");
  int Dev = 0, L2 = 0;
  check(cudaGetDevice(&Dev), "cudaGetDevice");
  check(cudaDeviceGetAttribute(&L2, cudaDevAttrL2CacheSize, Dev),
        "cudaDeviceGetAttribute(L2)");
  FlushBytes = 2 * (size_t)std::max(L2, 1 << 20);
  check(cudaMalloc(&Flush, FlushBytes), "cudaMalloc(L2 flush buffer)");
  check(cudaMalloc(&Marker, MarkerBytes), "cudaMalloc(marker)");
}

Bench::~Bench() {
  cudaFree(Flush);
  cudaFree(Marker);
  cudaEventDestroy(Start);
  cudaEventDestroy(Stop);
  cudaStreamDestroy(Stream);
}

namespace {

/// Set by main when CUPTI could not start; the references are then timed
/// with events only.
std::string CuptiStartError = "CUPTI was not started";

Percentiles percentiles(std::vector<double> Ns) {
  std::sort(Ns.begin(), Ns.end());
  auto Pct = [&](double P) {
    double X = P * (Ns.size() - 1);
    size_t Lo = (size_t)X, Hi = std::min(Lo + 1, Ns.size() - 1);
    return Ns[Lo] + (Ns[Hi] - Ns[Lo]) * (X - Lo);
  };
  Percentiles T;
  if (Ns.empty())
    return T;
  T.MedianNs = Pct(0.5);
  T.P10Ns = Pct(0.1);
  T.P90Ns = Pct(0.9);
  T.MinNs = Ns.front();
  T.MaxNs = Ns.back();
  return T;
}

} // namespace

/// The sum, per repetition, of the kernels and copies that CUPTI recorded
/// between that repetition's two marker memsets (MarkerBegin, MarkerEnd);
/// empty with Error when the markers do not pair up.
std::vector<double> bracketedSums(const std::vector<forge::worker::ActivityRecord> &Rs,
                                  size_t Reps, std::string &Error) {
  using Kind = forge::worker::ActivityRecord::Kind;
  std::vector<double> Sums;
  bool Open = false;
  double Sum = 0;
  for (const auto &R : Rs) {
    bool Marker = R.What == Kind::Set && R.Bytes == Bench::MarkerBytes;
    if (Marker && R.Value == Bench::MarkerBegin) {
      Open = true;
      Sum = 0;
    } else if (Marker && R.Value == Bench::MarkerEnd && Open) {
      Open = false;
      Sums.push_back(Sum);
    } else if (Open && R.What != Kind::Set) {
      if (R.End <= R.Start) {
        Error = "CUPTI delivered a record without a valid end time";
        return {};
      }
      Sum += double(R.End - R.Start);
    }
  }
  if (Sums.size() != Reps) {
    Error = "CUPTI's records bracket " + std::to_string(Sums.size()) + " of " +
            std::to_string(Reps) + " repetitions";
    return {};
  }
  return Sums;
}

Stats Bench::time(const std::function<void()> &Op,
                  const std::function<void()> &Prep) {
  for (int I = 0; I < Opts.Warmup; ++I) {
    if (Prep)
      Prep();
    Op();
  }
  check(cudaStreamSynchronize(Stream), "warm-up");
  std::string CuptiError = forge::worker::cuptiActive() ? "" : CuptiStartError;
  if (CuptiError.empty())
    forge::worker::cuptiDiscard(CuptiError);
  // Each repetition: the restore, the flush, then the call between two
  // events and between two marker memsets of Marker (untimed by events,
  // and not kernels or copies, so in no sum); CUPTI's records are read once
  // at the end, so the GPU is never left idle before a call.
  std::vector<double> EventNs;
  for (int I = 0; I < Opts.Reps; ++I) {
    if (Prep)
      Prep();
    check(cudaMemsetAsync(Flush, I & 0xff, FlushBytes, Stream), "L2 flush");
    check(cudaMemsetAsync(Marker, MarkerBegin, MarkerBytes, Stream), "marker");
    check(cudaEventRecord(Start, Stream), "cudaEventRecord");
    Op();
    check(cudaEventRecord(Stop, Stream), "cudaEventRecord");
    check(cudaMemsetAsync(Marker, MarkerEnd, MarkerBytes, Stream), "marker");
    check(cudaEventSynchronize(Stop), "timed repetition");
    float Ms = 0;
    check(cudaEventElapsedTime(&Ms, Start, Stop), "cudaEventElapsedTime");
    EventNs.push_back(Ms * 1e6);
  }
  check(cudaStreamSynchronize(Stream), "timed repetitions");
  check(cudaGetLastError(), "timed repetitions");
  std::vector<double> CuptiNs;
  std::vector<forge::worker::ActivityRecord> Records;
  if (CuptiError.empty() && forge::worker::cuptiCollectRecords(Records, CuptiError))
    CuptiNs = bracketedSums(Records, EventNs.size(), CuptiError);
  Stats T;
  T.Reps = (int)EventNs.size();
  T.Events = percentiles(EventNs);
  T.HasCupti = CuptiError.empty() && CuptiNs.size() == EventNs.size();
  T.CuptiError = CuptiError;
  if (T.HasCupti)
    T.Cupti = percentiles(CuptiNs);
  return T;
}

namespace {

std::string quote(const std::string &S) {
  std::string Out = "\"";
  for (char C : S) {
    if (C == '"' || C == '\\')
      Out += '\\', Out += C;
    else if ((unsigned char)C < 0x20)
      Out += ' ';
    else
      Out += C;
  }
  return Out + "\"";
}

std::string sizesJson(const Sizes &S) {
  std::string Out = "{";
  for (const auto &[K, V] : S) {
    if (Out.size() > 1)
      Out += ", ";
    Out += quote(K) + ": " + std::to_string(V);
  }
  return Out + "}";
}

bool AnyFailed = false;

} // namespace

void Bench::report(const std::string &Op, const std::string &Ref,
                   const std::string &Desc, bool Primary, const Sizes &S,
                   const Stats &T, const std::string &Check) const {
  if (Check != "ok" && Check != "skipped")
    AnyFailed = true;
  auto Fields = [](const Percentiles &P) {
    char Buf[256];
    std::snprintf(Buf, sizeof Buf,
                  "\"median_ns\": %.1f, \"p10_ns\": %.1f, \"p90_ns\": %.1f, "
                  "\"min_ns\": %.1f, \"max_ns\": %.1f, \"spread\": %.4f",
                  P.MedianNs, P.P10Ns, P.P90Ns, P.MinNs, P.MaxNs,
                  P.MedianNs > 0 ? (P.P90Ns - P.P10Ns) / P.MedianNs : 0.0);
    return std::string(Buf);
  };
  std::string Timing = Fields(T.primary()) + ", \"timer\": " +
                       quote(T.HasCupti ? "cupti" : "events") +
                       ", \"events\": {" + Fields(T.Events) + "}";
  if (!T.HasCupti)
    Timing += ", \"cupti_error\": " + quote(T.CuptiError);
  char Buf[128];
  std::snprintf(Buf, sizeof Buf, ", \"reps\": %d, \"warmup\": %d, \"flush_bytes\": %zu",
                T.Reps, Opts.Warmup, FlushBytes);
  std::printf("{\"type\": \"ref\", \"op\": %s, \"ref\": %s, \"desc\": %s, "
              "\"primary\": %s, \"sizes\": %s, %s%s, \"check\": %s}\n",
              quote(Op).c_str(), quote(Ref).c_str(), quote(Desc).c_str(),
              Primary ? "true" : "false", sizesJson(S).c_str(), Timing.c_str(), Buf,
              quote(Check).c_str());
  std::fflush(stdout);
}

} // namespace refs

//===----------------------------------------------------------------------===//
// main
//===----------------------------------------------------------------------===//

namespace {

using namespace refs;

struct OpEntry {
  const char *Name;
  const char *Category;
  Sizes Defaults; ///< the spec's sizes
  void (*Run)(Bench &, const Sizes &);
};

const long long M28 = 1LL << 28, M26 = 1LL << 26, M24 = 1LL << 24;

const std::vector<OpEntry> &ops() {
  static const std::vector<OpEntry> Ops = {
      {"copy", "memory-bound", {{"N", M28}}, runCopy},
      {"add", "memory-bound", {{"N", M28}}, runAdd},
      {"scale", "memory-bound", {{"N", M28}}, runScale},
      {"triad", "memory-bound", {{"N", M28}}, runTriad},
      {"axpy", "memory-bound", {{"N", M28}}, runAxpy},
      {"gather", "memory-bound", {{"N", M28}}, runGather},
      {"scatter", "memory-bound", {{"N", M28}}, runScatter},
      {"sgemm", "dense", {{"M", 2048}, {"N", 2048}, {"K", 2048}}, runSgemm},
      {"dgemm", "dense", {{"M", 2048}, {"N", 2048}, {"K", 2048}}, runDgemm},
      {"sgemm_batched", "dense", {{"BATCH", 256}, {"N", 256}}, runSgemmBatched},
      {"sgemm_tf32", "dense", {{"M", 4096}, {"N", 4096}, {"K", 4096}}, runSgemmTf32},
      {"hgemm", "dense", {{"M", 4096}, {"N", 4096}, {"K", 4096}}, runHgemm},
      {"bgemm", "dense", {{"M", 4096}, {"N", 4096}, {"K", 4096}}, runBgemm},
      {"stencil1d", "stencil", {{"N", M26}, {"R", 3}}, runStencil1d},
      {"conv2d_3x3", "stencil", {{"H", 4096}, {"W", 4096}, {"K", 3}}, runConv2d3x3},
      {"conv2d_5x5", "stencil", {{"H", 4096}, {"W", 4096}, {"K", 5}}, runConv2d5x5},
      {"conv2d_7x7", "stencil", {{"H", 4096}, {"W", 4096}, {"K", 7}}, runConv2d7x7},
      {"conv2d_separable", "stencil", {{"H", 4096}, {"W", 4096}, {"K", 7}},
       runConv2dSeparable},
      {"reduce_sum", "reduction", {{"N", M24}}, runReduceSum},
      {"reduce_max", "reduction", {{"N", M24}}, runReduceMax},
      {"reduce_min", "reduction", {{"N", M24}}, runReduceMin},
      {"reduce_argmax", "reduction", {{"N", M24}}, runReduceArgmax},
      {"scan_inclusive", "reduction", {{"N", M24}}, runScanInclusive},
      {"radix_sort", "sorting", {{"N", M24}}, runRadixSort},
      // PASSES is the first-round kernel's; the library does not need it.
      {"merge_sort", "sorting", {{"N", M24}, {"PASSES", 24}}, runMergeSort},
  };
  return Ops;
}

const char *Usage =
    "usage: bench-refs [--op NAME[,NAME...]]... [--sizes K=V[,K=V...]] [--reps N]\n"
    "                  [--warmup N] [--seed S] [--no-check] [--list]\n";

int usage(const std::string &Why) {
  std::fprintf(stderr, "bench-refs: error: %s\n%s", Why.c_str(), Usage);
  return 2;
}

bool parseInt(const char *Text, long long &Out) {
  char *End = nullptr;
  errno = 0;
  long long V = std::strtoll(Text, &End, 0);
  if (errno || End == Text || *End)
    return false;
  Out = V;
  return true;
}

std::vector<std::string> split(const std::string &S, char Sep) {
  std::vector<std::string> Out;
  std::stringstream SS(S);
  std::string Part;
  while (std::getline(SS, Part, Sep))
    if (!Part.empty())
      Out.push_back(Part);
  return Out;
}

} // namespace

int main(int Argc, char **Argv) {
  Options Opts;
  std::vector<std::string> Names;
  Sizes Given;
  bool List = false;
  for (int I = 1; I < Argc; ++I) {
    std::string A = Argv[I];
    auto Value = [&]() -> const char * {
      return I + 1 < Argc ? Argv[++I] : nullptr;
    };
    long long V = 0;
    if (A == "--op") {
      const char *T = Value();
      if (!T)
        return usage("--op needs a name");
      for (const std::string &N : split(T, ','))
        Names.push_back(N);
    } else if (A == "--sizes") {
      const char *T = Value();
      if (!T)
        return usage("--sizes needs K=V[,K=V...]");
      for (const std::string &P : split(T, ',')) {
        size_t Eq = P.find('=');
        if (Eq == std::string::npos || !parseInt(P.c_str() + Eq + 1, V) || V <= 0)
          return usage("--sizes: expected NAME=POSITIVE_INTEGER, got '" + P + "'");
        Given[P.substr(0, Eq)] = V;
      }
    } else if (A == "--reps" || A == "--warmup" || A == "--seed") {
      const char *T = Value();
      if (!T || !parseInt(T, V) || V < 0)
        return usage(A + " needs a non-negative integer");
      if (A == "--reps") {
        if (V < 20)
          return usage("--reps must be at least 20 (median and spread need them)");
        Opts.Reps = (int)V;
      } else if (A == "--warmup") {
        Opts.Warmup = (int)V;
      } else {
        Opts.Seed = (uint64_t)V;
      }
    } else if (A == "--no-check") {
      Opts.Check = false;
    } else if (A == "--list") {
      List = true;
    } else if (A == "-h" || A == "--help") {
      std::fputs(Usage, stdout);
      return 0;
    } else {
      return usage("unknown argument '" + A + "'");
    }
  }

  std::vector<const OpEntry *> Selected;
  for (const std::string &N : Names) {
    auto It = std::find_if(ops().begin(), ops().end(),
                           [&](const OpEntry &E) { return N == E.Name; });
    if (It == ops().end()) {
      std::string Known;
      for (const OpEntry &E : ops())
        Known += std::string(Known.empty() ? "" : ", ") + E.Name;
      return usage("unknown operation '" + N + "'; known: " + Known);
    }
    Selected.push_back(&*It);
  }
  if (Names.empty())
    for (const OpEntry &E : ops())
      Selected.push_back(&E);
  for (const auto &KV : Given) {
    const std::string &K = KV.first;
    bool Known = std::any_of(Selected.begin(), Selected.end(),
                             [&](const OpEntry *E) { return E->Defaults.count(K); });
    if (!Known)
      return usage("--sizes: no selected operation has a size '" + K + "'");
  }
  auto SizesOf = [&](const OpEntry *E) {
    Sizes S = E->Defaults;
    for (const auto &[K, V] : Given)
      if (S.count(K))
        S[K] = V;
    return S;
  };
  if (List) {
    for (const OpEntry *E : Selected) {
      std::printf("%-18s %-13s", E->Name, E->Category);
      for (const auto &[K, V] : SizesOf(E))
        std::printf(" %s=%lld", K.c_str(), V);
      std::printf("\n");
    }
    return 0;
  }

  int Status = 0;
  // Before the CUDA context exists, as in forge-worker.
  std::string CuptiError;
  if (forge::worker::cuptiStart(CuptiError, /*Copies=*/true))
    refs::CuptiStartError.clear();
  else
    refs::CuptiStartError = "CUPTI did not start: " + CuptiError;
  try {
    Bench B(Opts);
    cudaDeviceProp P;
    int Dev = 0, Runtime = 0, Driver = 0;
    check(cudaGetDevice(&Dev), "cudaGetDevice");
    check(cudaGetDeviceProperties(&P, Dev), "cudaGetDeviceProperties");
    cudaRuntimeGetVersion(&Runtime);
    cudaDriverGetVersion(&Driver);
    std::printf("{\"type\": \"device\", \"name\": \"%s\", \"cc\": \"%d.%d\", "
                "\"sms\": %d, \"l2_bytes\": %d, \"runtime\": %d, \"driver\": %d}\n",
                P.name, P.major, P.minor, P.multiProcessorCount, P.l2CacheSize,
                Runtime, Driver);
    for (const OpEntry *E : Selected) {
      Sizes S = SizesOf(E);
      try {
        E->Run(B, S);
      } catch (const Failure &F) {
        Status = 1;
        std::printf("{\"type\": \"ref\", \"op\": \"%s\", \"error\": \"%s\"}\n",
                    E->Name, F.what());
        std::fprintf(stderr, "bench-refs: %s: %s\n", E->Name, F.what());
        std::fflush(stdout);
        // A sticky error ends the context: the next operations would fail
        // the same way.
        if (cudaDeviceSynchronize() != cudaSuccess &&
            cudaGetLastError() != cudaSuccess)
          return 1;
      }
    }
  } catch (const Failure &F) {
    std::fprintf(stderr, "bench-refs: %s\n", F.what());
    return 1;
  }
  return Status || AnyFailed ? 1 : 0;
}
