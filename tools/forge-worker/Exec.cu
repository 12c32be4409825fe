//===- forge-worker/Exec.cu - The child that runs candidates --------------===//
///
/// \file
/// `forge-worker exec`: loads the harness libraries of a job, checks every
/// candidate against the reference on the GPU and times it, appending one
/// line per candidate to results.jsonl (docs/worker-protocol.md, "What the
/// child does", "Statuses", "results.jsonl").
///
/// The process runs in phases: the reference is loaded and checked (its
/// outputs for every input set are kept on the GPU), then each candidate is
/// loaded and checked, then the reference and the live candidates are timed
/// in interleaved rounds, and finally the lines are written. A candidate
/// that cannot be loaded or launched gets its line at once; a sticky CUDA
/// error writes the current candidate's line as `crashed` and ends the
/// process with status 3, so that the supervisor runs the rest in a fresh
/// one.
///
//===----------------------------------------------------------------------===//

#include "Ceilings.h"
#include "Cupti.h"
#include "Exec.h"
#include "Sandbox.h"
#include "Supervisor.h"
#include "forge/Measure/WorkerProtocol.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <dlfcn.h>
#include <fcntl.h>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

namespace forge::worker {

using measure::CandidateStatus;

namespace {

//===----------------------------------------------------------------------===//
// Device side: element traits, the input generator, fills, comparisons
//===----------------------------------------------------------------------===//

/// Per-dtype element access: the bit pattern type, conversion to and from
/// double, and whether the type is floating point.
template <typename T> struct Elem;

template <> struct Elem<float> {
  using Bits = uint32_t;
  static constexpr bool Float = true;
  __device__ static double toD(float V) { return V; }
  __device__ static float fromD(double D) { return float(D); }
};
template <> struct Elem<double> {
  using Bits = uint64_t;
  static constexpr bool Float = true;
  __device__ static double toD(double V) { return V; }
  __device__ static double fromD(double D) { return D; }
};
template <> struct Elem<__half> {
  using Bits = uint16_t;
  static constexpr bool Float = true;
  __device__ static double toD(__half V) { return __half2float(V); }
  __device__ static __half fromD(double D) { return __double2half(D); }
};
template <> struct Elem<__nv_bfloat16> {
  using Bits = uint16_t;
  static constexpr bool Float = true;
  __device__ static double toD(__nv_bfloat16 V) { return __bfloat162float(V); }
  __device__ static __nv_bfloat16 fromD(double D) {
    return __double2bfloat16(D);
  }
};

/// Integers: Lo and Hi are the limits as doubles; a double at or beyond
/// them saturates (Hi of the 64-bit types is 2^63 or 2^64, which no value
/// of the type reaches, so the cast below never overflows).
template <typename I, typename B, long long LoV, unsigned long long HiV,
          bool Wide>
struct IntElem {
  using Bits = B;
  static constexpr bool Float = false;
  __device__ static double toD(I V) { return double(V); }
  __device__ static I fromD(double D) {
    if (D != D)
      return I(0);
    double R = rint(D);
    if (R <= double(LoV))
      return I(LoV);
    if (Wide ? R >= 2.0 * double(HiV / 2 + 1) : R >= double(HiV))
      return I(HiV);
    return I(R);
  }
};
template <>
struct Elem<int8_t> : IntElem<int8_t, uint8_t, -128, 127, false> {};
template <>
struct Elem<uint8_t> : IntElem<uint8_t, uint8_t, 0, 255, false> {};
template <>
struct Elem<int16_t> : IntElem<int16_t, uint16_t, -32768, 32767, false> {};
template <>
struct Elem<uint16_t> : IntElem<uint16_t, uint16_t, 0, 65535, false> {};
template <>
struct Elem<int32_t>
    : IntElem<int32_t, uint32_t, -2147483647LL - 1, 2147483647ULL, false> {};
template <>
struct Elem<uint32_t> : IntElem<uint32_t, uint32_t, 0, 4294967295ULL, false> {
};
template <>
struct Elem<int64_t> : IntElem<int64_t, uint64_t, -9223372036854775807LL - 1,
                               9223372036854775807ULL, true> {};
template <>
struct Elem<uint64_t>
    : IntElem<uint64_t, uint64_t, 0, 18446744073709551615ULL, true> {};

__host__ __device__ inline uint64_t mix64(uint64_t Z) {
  Z += 0x9E3779B97F4A7C15ULL;
  Z = (Z ^ (Z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  Z = (Z ^ (Z >> 27)) * 0x94D049BB133111EBULL;
  return Z ^ (Z >> 31);
}

/// The key of one (seed, set, buffer) stream; element i draws
/// mix64(Key ^ mix64(2i + k)) for its k-th random word.
uint64_t streamKey(uint64_t Seed, unsigned Set, size_t Buffer) {
  return mix64(mix64(mix64(Seed) ^ (uint64_t(Set) + 1)) ^
               (uint64_t(Buffer) * 0x100000001B3ULL + 7));
}

__device__ inline uint64_t drawWord(uint64_t Key, uint64_t I, unsigned K) {
  return mix64(Key ^ mix64(2 * I + K));
}

enum GenKind : int { GenUniform, GenNormal, GenIota, GenConstant };

#define FW_GRID_STRIDE(I, N)                                                   \
  for (uint64_t I = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; I < (N);  \
       I += uint64_t(gridDim.x) * blockDim.x)

/// Uniform integers are ILo + (word mod IRange) in 64-bit modular
/// arithmetic (IRange 0: the full 64-bit range).
template <typename T>
__global__ void genKernel(T *P, uint64_t N, int Kind, double A, double B,
                          uint64_t Key, uint64_t ILo, uint64_t IRange) {
  using E = Elem<T>;
  FW_GRID_STRIDE(I, N) {
    T V;
    if (Kind == GenUniform) {
      uint64_t W = drawWord(Key, I, 0);
      if constexpr (E::Float) {
        double U = double(W >> 11) * 0x1.0p-53; // [0, 1)
        V = E::fromD(A + (B - A) * U);
      } else {
        V = T(ILo + (IRange ? W % IRange : W));
      }
    } else if (Kind == GenNormal) {
      double U1 = double((drawWord(Key, I, 0) >> 11) + 1) * 0x1.0p-53; // (0,1]
      double U2 = double(drawWord(Key, I, 1) >> 11) * 0x1.0p-53;
      double Z = sqrt(-2.0 * log(U1)) * cospi(2.0 * U2);
      V = E::fromD(A + B * Z);
    } else if (Kind == GenIota) {
      if constexpr (E::Float)
        V = E::fromD(double(I));
      else
        V = T(I);
    } else {
      V = E::fromD(A);
    }
    P[I] = V;
  }
}

template <typename U> __global__ void fillKernel(U *P, uint64_t N, U V) {
  FW_GRID_STRIDE(I, N) P[I] = V;
}

/// What one comparison kernel reports. FirstBad and FirstUnwritten start
/// at ~0 (none).
struct DevStats {
  double SumSqDiff;
  double SumSqRef;
  unsigned long long MaxAbsBits; ///< of a non-negative double
  unsigned long long OverBound;
  unsigned long long Unwritten;
  unsigned long long Poisoned;
  unsigned long long Finite;
  unsigned long long FirstBad;
  unsigned long long FirstUnwritten;
};

/// Per-thread partial results, reduced per warp and added with one atomic
/// per warp and field.
struct Partial {
  double SumSqDiff = 0, SumSqRef = 0, MaxAbs = 0;
  unsigned long long OverBound = 0, Unwritten = 0, Poisoned = 0, Finite = 0;
  unsigned long long FirstBad = ~0ULL, FirstUnwritten = ~0ULL;

  __device__ void flush(DevStats *S) {
    const unsigned Mask = 0xffffffffu;
    for (int O = 16; O > 0; O /= 2) {
      SumSqDiff += __shfl_down_sync(Mask, SumSqDiff, O);
      SumSqRef += __shfl_down_sync(Mask, SumSqRef, O);
      MaxAbs = fmax(MaxAbs, __shfl_down_sync(Mask, MaxAbs, O));
      OverBound += __shfl_down_sync(Mask, OverBound, O);
      Unwritten += __shfl_down_sync(Mask, Unwritten, O);
      Poisoned += __shfl_down_sync(Mask, Poisoned, O);
      Finite += __shfl_down_sync(Mask, Finite, O);
      unsigned long long F1 = __shfl_down_sync(Mask, FirstBad, O);
      unsigned long long F2 = __shfl_down_sync(Mask, FirstUnwritten, O);
      FirstBad = F1 < FirstBad ? F1 : FirstBad;
      FirstUnwritten = F2 < FirstUnwritten ? F2 : FirstUnwritten;
    }
    if ((threadIdx.x & 31) != 0)
      return;
    if (SumSqDiff != 0)
      atomicAdd(&S->SumSqDiff, SumSqDiff);
    if (SumSqRef != 0)
      atomicAdd(&S->SumSqRef, SumSqRef);
    if (MaxAbs > 0)
      atomicMax(&S->MaxAbsBits,
                (unsigned long long)__double_as_longlong(MaxAbs));
    if (OverBound)
      atomicAdd(&S->OverBound, OverBound);
    if (Unwritten)
      atomicAdd(&S->Unwritten, Unwritten);
    if (Poisoned)
      atomicAdd(&S->Poisoned, Poisoned);
    if (Finite)
      atomicAdd(&S->Finite, Finite);
    if (FirstBad != ~0ULL)
      atomicMin(&S->FirstBad, FirstBad);
    if (FirstUnwritten != ~0ULL)
      atomicMin(&S->FirstUnwritten, FirstUnwritten);
  }
};

/// The reference's own statistics: the sum of squares and count of its
/// finite elements, and (for `out` buffers) how many still hold the poison.
template <typename T>
__global__ void refStatsKernel(const T *R, uint64_t N,
                               typename Elem<T>::Bits Poison, int CheckPoison,
                               DevStats *S) {
  using E = Elem<T>;
  using B = typename E::Bits;
  const B *RB = reinterpret_cast<const B *>(R);
  Partial Acc;
  // Every lane of a warp must reach flush(), so the loop runs to a bound
  // that is the same for the whole warp.
  uint64_t Stride = uint64_t(gridDim.x) * blockDim.x;
  uint64_t Base = uint64_t(blockIdx.x) * blockDim.x;
  for (uint64_t First = Base; First < N; First += Stride) {
    uint64_t I = First + threadIdx.x;
    if (I >= N)
      continue;
    if (CheckPoison && RB[I] == Poison) {
      ++Acc.Poisoned;
      Acc.FirstUnwritten = Acc.FirstUnwritten < I ? Acc.FirstUnwritten : I;
      continue;
    }
    double V = E::toD(R[I]);
    if (isfinite(V)) {
      Acc.SumSqRef += V * V;
      ++Acc.Finite;
    }
  }
  Acc.flush(S);
}

/// Elements that hold poison P1 in the first reference run and P2 in the
/// second: really unwritten, not a value that happens to equal P1.
template <typename B>
__global__ void bothPoisonKernel(const B *R1, const B *R2, uint64_t N, B P1,
                                 B P2, DevStats *S) {
  Partial Acc;
  uint64_t Stride = uint64_t(gridDim.x) * blockDim.x;
  uint64_t Base = uint64_t(blockIdx.x) * blockDim.x;
  for (uint64_t First = Base; First < N; First += Stride) {
    uint64_t I = First + threadIdx.x;
    if (I < N && R1[I] == P1 && R2[I] == P2) {
      ++Acc.Unwritten;
      Acc.FirstUnwritten = Acc.FirstUnwritten < I ? Acc.FirstUnwritten : I;
    }
  }
  Acc.flush(S);
}

/// Elements whose bits differ (the `in` buffer check).
template <typename B>
__global__ void diffKernel(const B *X, const B *Y, uint64_t N, DevStats *S) {
  Partial Acc;
  uint64_t Stride = uint64_t(gridDim.x) * blockDim.x;
  uint64_t Base = uint64_t(blockIdx.x) * blockDim.x;
  for (uint64_t First = Base; First < N; First += Stride) {
    uint64_t I = First + threadIdx.x;
    if (I < N && X[I] != Y[I]) {
      ++Acc.OverBound;
      Acc.FirstBad = Acc.FirstBad < I ? Acc.FirstBad : I;
    }
  }
  Acc.flush(S);
}

enum CompareMode : int {
  CmpFloatRel, ///< bound RelBound * (|r| + Rms)
  CmpFloatAbs, ///< bound MaxAbs
  CmpIntExact,
  CmpIntAbs,
};

struct CompareParams {
  uint64_t N;
  int Mode;
  int IsOut; ///< an `out` buffer: elements still holding Poison are unwritten
  double MaxAbs;
  double RelBound;
  double Rms;
};

/// A candidate's output C against the reference's R.
template <typename T>
__global__ void compareKernel(const T *C, const T *R, CompareParams Pm,
                              typename Elem<T>::Bits Poison, DevStats *S) {
  using E = Elem<T>;
  using B = typename E::Bits;
  const B *CB = reinterpret_cast<const B *>(C);
  const B *RB = reinterpret_cast<const B *>(R);
  Partial Acc;
  uint64_t Stride = uint64_t(gridDim.x) * blockDim.x;
  uint64_t Base = uint64_t(blockIdx.x) * blockDim.x;
  for (uint64_t First = Base; First < Pm.N; First += Stride) {
    uint64_t I = First + threadIdx.x;
    if (I >= Pm.N)
      continue;
    B Cb = CB[I], Rb = RB[I];
    if (Pm.IsOut && Cb == Poison) {
      ++Acc.Poisoned;
      if (Rb != Poison) {
        ++Acc.Unwritten;
        Acc.FirstUnwritten = Acc.FirstUnwritten < I ? Acc.FirstUnwritten : I;
        continue;
      }
    }
    if (Cb == Rb)
      continue;
    double Cv = E::toD(C[I]), Rv = E::toD(R[I]);
    bool Bad;
    if constexpr (E::Float) {
      if (isnan(Cv) && isnan(Rv))
        continue;
      if (!isfinite(Cv) || !isfinite(Rv)) {
        Bad = Cv != Rv;
      } else {
        double D = fabs(Cv - Rv);
        Acc.SumSqDiff += D * D;
        Acc.MaxAbs = fmax(Acc.MaxAbs, D);
        double Bound = Pm.Mode == CmpFloatAbs ? Pm.MaxAbs
                                              : Pm.RelBound * (fabs(Rv) + Pm.Rms);
        Bad = D > Bound;
      }
    } else {
      double D = fabs(Cv - Rv);
      Acc.SumSqDiff += D * D;
      Acc.MaxAbs = fmax(Acc.MaxAbs, D);
      Bad = Pm.Mode == CmpIntAbs ? D > Pm.MaxAbs : true;
    }
    if (Bad) {
      ++Acc.OverBound;
      Acc.FirstBad = Acc.FirstBad < I ? Acc.FirstBad : I;
    }
  }
  Acc.flush(S);
}

//===----------------------------------------------------------------------===//
// Host side helpers
//===----------------------------------------------------------------------===//

/// Calls F with a value of the C++ type of T.
template <typename F> void withType(DType T, F &&Fn) {
  switch (T) {
  case DType::F16: Fn(__half()); return;
  case DType::BF16: Fn(__nv_bfloat16()); return;
  case DType::F32: Fn(float()); return;
  case DType::F64: Fn(double()); return;
  case DType::I8: Fn(int8_t()); return;
  case DType::I32: Fn(int32_t()); return;
  case DType::I64: Fn(int64_t()); return;
  case DType::U8: Fn(uint8_t()); return;
  case DType::I16: Fn(int16_t()); return;
  case DType::U16: Fn(uint16_t()); return;
  case DType::U32: Fn(uint32_t()); return;
  case DType::U64: Fn(uint64_t()); return;
  }
}

/// Calls F with an unsigned integer of Size bytes.
template <typename F> void withBits(size_t Size, F &&Fn) {
  switch (Size) {
  case 1: Fn(uint8_t()); return;
  case 2: Fn(uint16_t()); return;
  case 4: Fn(uint32_t()); return;
  default: Fn(uint64_t()); return;
  }
}

/// The poison written into `out` buffers before a launch: NaNs with an
/// unusual payload for floating point (so that an element left unwritten is
/// told apart from a NaN the kernel computed), 0x7F.. bytes for integers.
/// The second pattern is for the reference's confirmation run.
uint64_t poisonBits(DType T, int Which) {
  switch (T) {
  case DType::F16: return Which == 1 ? 0x7E5A : 0x7D3C;
  case DType::BF16: return Which == 1 ? 0x7FDA : 0x7FB3;
  case DType::F32: return Which == 1 ? 0x7FDADADAu : 0x7FB3B3B3u;
  case DType::F64:
    return Which == 1 ? 0x7FFDADADADADADADULL : 0x7FFB3B3B3B3B3B3BULL;
  default: {
    uint64_t Byte = Which == 1 ? 0x7F : 0x80;
    uint64_t V = 0;
    for (size_t I = 0; I < dtypeSize(T); ++I)
      V |= Byte << (8 * I);
    return V;
  }
  }
}

double defaultRelL2(DType T) {
  switch (T) {
  case DType::F64: return 1e-12;
  case DType::F32: return 1e-5;
  case DType::F16:
  case DType::BF16: return 1e-2;
  default: return 0;
  }
}

/// A CUDA failure of the worker's own work (not a candidate's launch).
struct CudaFailure {
  cudaError_t Code;
  std::string Text;
};

std::string errorText(cudaError_t E) {
  return std::string(cudaGetErrorName(E)) + ": " + cudaGetErrorString(E);
}

void ck(cudaError_t E, const char *What) {
  if (E != cudaSuccess)
    throw CudaFailure{E, std::string(What) + ": " + errorText(E)};
}

/// Errors after which the context cannot be used again.
bool isStickyCode(cudaError_t E) {
  switch (E) {
  case cudaErrorIllegalAddress:
  case cudaErrorMisalignedAddress:
  case cudaErrorLaunchFailure:
  case cudaErrorAssert:
  case cudaErrorHardwareStackError:
  case cudaErrorIllegalInstruction:
  case cudaErrorInvalidAddressSpace:
  case cudaErrorInvalidPc:
  case cudaErrorLaunchTimeout:
  case cudaErrorECCUncorrectable:
  case cudaErrorContained:
  case cudaErrorTensorMemoryLeak:
    return true;
  default:
    return false;
  }
}

std::string joinPath(const std::string &Dir, const std::string &Name) {
  if (Dir.empty())
    return Name;
  return Dir.back() == '/' ? Dir + Name : Dir + "/" + Name;
}

struct TimeStats {
  double Median = 0, Min = 0, Max = 0, P10 = 0, P90 = 0, Spread = 0;
  size_t Samples = 0;
};

double percentile(const std::vector<double> &Sorted, double P) {
  if (Sorted.empty())
    return 0;
  double Pos = P * double(Sorted.size() - 1);
  size_t Lo = size_t(std::floor(Pos));
  size_t Hi = std::min(Lo + 1, Sorted.size() - 1);
  double F = Pos - double(Lo);
  return Sorted[Lo] + (Sorted[Hi] - Sorted[Lo]) * F;
}

double medianOf(std::vector<double> V) {
  std::sort(V.begin(), V.end());
  return percentile(V, 0.5);
}

TimeStats statsOf(std::vector<double> V) {
  TimeStats S;
  std::sort(V.begin(), V.end());
  S.Samples = V.size();
  if (V.empty())
    return S;
  S.Median = percentile(V, 0.5);
  S.Min = V.front();
  S.Max = V.back();
  S.P10 = percentile(V, 0.1);
  S.P90 = percentile(V, 0.9);
  S.Spread = S.Median > 0 ? (S.P90 - S.P10) / S.Median : 0;
  return S;
}

//===----------------------------------------------------------------------===//
// The executor
//===----------------------------------------------------------------------===//

struct BufferState {
  const BufferPlan *Plan = nullptr;
  size_t Index = 0;
  size_t Bytes = 0;
  void *Dev = nullptr;
  std::vector<void *> RefOut;    ///< per set, out/inout buffers
  std::vector<double> RefSumSq;  ///< per set
  std::vector<double> RefFinite; ///< per set
  std::vector<char> FileData;    ///< file init
  /// Set 0's contents, copied back before every timed launch when a kernel
  /// may change the buffer (inout, or an input a candidate was seen
  /// changing); null when there was no memory for it (regenerated then).
  void *Pristine = nullptr;
  bool PristineTried = false;
};

struct CheckResult {
  unsigned Set = 0;
  std::string Buffer;
  double RelL2 = 0, MaxAbs = 0;
  uint64_t OverBound = 0, Unwritten = 0, Poisoned = 0, Count = 0;
  int64_t FirstBad = -1, FirstUnwritten = -1;
  bool IsOut = false;
  bool Wrong = false;
};

struct InputChange {
  unsigned Set = 0;
  std::string Buffer;
  uint64_t Elements = 0;
  int64_t First = -1;
};

struct CandState {
  const CandidatePlan *Plan = nullptr;
  bool Selected = false;
  const void *Fn = nullptr;
  std::vector<uint64_t> ArgStore;
  std::vector<void *> ArgPtrs;
  bool LoadFailed = false, LaunchFailed = false, Crashed = false;
  std::string Error;
  std::vector<CheckResult> Checks;
  std::vector<InputChange> Changes;
  bool Checked = false; ///< every input set was checked
  // Timing.
  unsigned Reps = 0;
  std::vector<double> Samples;
  std::vector<double> RoundMedians;
  bool TimedCupti = false, TimedEvents = false;
  /// Buffers restored before every timed launch (inout ones, inputs it
  /// changed), and whether some were regenerated by a kernel for want of
  /// memory for a pristine copy (then timed with events).
  std::vector<std::string> Restored;
  bool Regenerated = false;
  bool Written = false;

  bool live() const { return !LoadFailed && !LaunchFailed && !Crashed; }
};

enum class LaunchOutcome { Ok, LaunchFailed, Crashed };

/// Thrown to end the process after a sticky error; the line is written.
struct StickyExit {
  int Status;
};

class Executor {
public:
  Executor(const Plan &P, const ExecOptions &O) : P(P), O(O) {}
  ~Executor();
  int run();

private:
  const Plan &P;
  const ExecOptions &O;

  int Device = 0;
  cudaDeviceProp Prop{};
  std::string Uuid;
  cudaStream_t Stream = nullptr;
  std::vector<BufferState> Bufs;
  /// Device-code libraries (a harness compiled to a cubin), by path: each
  /// is loaded once, and stays loaded until the process ends.
  std::map<std::string, cudaLibrary_t> Cubins;
  bool loadCubin(CandState &C);
  bool bindArguments(CandState &C);
  void *Scratch = nullptr;
  void *Flush = nullptr;
  size_t FlushBytes = 0;
  DevStats *DStats = nullptr;
  DevStats *HStats = nullptr;
  std::vector<cudaEvent_t> Events;
  bool UseCupti = false;
  std::string TimerError;
  std::optional<CeilingValues> Ceil;
  bool ProgressWarned = false;
  bool WriteFailed = false;
  std::vector<CandState> Cands; ///< the reference first, then the selected

  int sms() const { return std::max(Prop.multiProcessorCount, 1); }
  unsigned gridFor(uint64_t N) const {
    uint64_t Blocks = (N + 255) / 256;
    return unsigned(std::max<uint64_t>(
        1, std::min<uint64_t>(Blocks, uint64_t(sms()) * 8)));
  }

  bool readFiles(std::string &Error);
  bool initDevice(std::string &Error);
  std::string deviceLine() const;
  bool allocate(std::string &Error);
  void progress(const std::string &Id);
  bool emit(const std::string &Line);

  // GPU operations of the worker itself (throw CudaFailure).
  void generate(const BufferState &B, unsigned Set, void *Dst);
  void fillInputs(unsigned Set);
  bool mayChange(const BufferState &B, const CandState &C) const;
  bool snapshotInputs(CandState &C);
  cudaError_t restoreInputs(const CandState &C);
  void poisonOutputs(int Which);
  void resetStats();
  DevStats readStats();

  // Candidates.
  bool load(CandState &C);
  cudaError_t launch(const CandState &C);
  LaunchOutcome classify(cudaError_t E, CandState &C);
  LaunchOutcome launchAndSync(CandState &C);
  bool checkReference(CandState &R);
  void checkCandidate(CandState &C);
  void compareOutputs(CandState &C, unsigned Set);
  void compareInputs(CandState &C, unsigned Set);

  // Timing.
  bool timeAll();
  LaunchOutcome timedBlock(CandState &C, unsigned Reps,
                           std::vector<double> &Ns);
  LaunchOutcome warmUp(CandState &C);

  // Results.
  std::string candidateLine(const CandState &C) const;
  std::vector<CandidateStatus> reasons(const CandState &C) const;
  int referenceFailed(const CandState &R, CandidateStatus Status,
                      const std::string &Error);
  [[noreturn]] void crashed(CandState &C);
};

Executor::~Executor() {
  // The process ends right after; release what is easy to release so that
  // a debugger or sanitizer run stays quiet. Errors are ignored.
  for (cudaEvent_t E : Events)
    cudaEventDestroy(E);
  for (BufferState &B : Bufs) {
    if (B.Pristine)
      cudaFree(B.Pristine);
    if (B.Dev)
      cudaFree(B.Dev);
    for (void *R : B.RefOut)
      if (R)
        cudaFree(R);
  }
  if (Scratch)
    cudaFree(Scratch);
  if (Flush)
    cudaFree(Flush);
  if (DStats)
    cudaFree(DStats);
  if (HStats)
    cudaFreeHost(HStats);
  if (Stream)
    cudaStreamDestroy(Stream);
}

bool Executor::emit(const std::string &Line) {
  if (appendResultLine(P.JobDir, Line))
    return true;
  std::fprintf(stderr, "forge-worker: cannot append to %s: %s\n",
               joinPath(P.JobDir, "results.jsonl").c_str(),
               std::strerror(errno));
  WriteFailed = true;
  return false;
}

void Executor::progress(const std::string &Id) {
  std::string Path = joinPath(P.JobDir, "progress");
  std::string Tmp = Path + ".tmp";
  int Fd = ::open(Tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  bool Ok = Fd >= 0;
  if (Ok) {
    Ok = ::write(Fd, Id.data(), Id.size()) == ssize_t(Id.size());
    Ok = (::close(Fd) == 0) && Ok;
  }
  if (Ok)
    Ok = std::rename(Tmp.c_str(), Path.c_str()) == 0;
  if (!Ok && !ProgressWarned) {
    ProgressWarned = true;
    std::fprintf(stderr, "forge-worker: warning: cannot write %s: %s\n",
                 Path.c_str(), std::strerror(errno));
  }
}

bool Executor::readFiles(std::string &Error) {
  for (BufferState &B : Bufs) {
    if (B.Plan->Init != InitKind::File)
      continue;
    std::ifstream In(B.Plan->Path, std::ios::binary);
    if (!In) {
      Error = "buffer '" + B.Plan->Name + "': cannot open '" + B.Plan->Path +
              "': " + std::strerror(errno);
      return false;
    }
    B.FileData.resize(B.Bytes);
    In.read(B.FileData.data(), std::streamsize(B.Bytes));
    if (size_t(In.gcount()) != B.Bytes) {
      Error = "buffer '" + B.Plan->Name + "': '" + B.Plan->Path + "' has " +
              std::to_string(In.gcount()) + " bytes, but " +
              std::to_string(B.Plan->Count) + " elements of " +
              dtypeName(B.Plan->Type) + " need " + std::to_string(B.Bytes);
      return false;
    }
  }
  return true;
}

bool Executor::initDevice(std::string &Error) {
  int Count = 0;
  cudaError_t E = cudaGetDeviceCount(&Count);
  if (E != cudaSuccess) {
    Error = errorText(E);
    return false;
  }
  if (Count == 0) {
    Error = "no CUDA device";
    return false;
  }
  if ((E = cudaGetDevice(&Device)) != cudaSuccess ||
      (E = cudaFree(nullptr)) != cudaSuccess ||
      (E = cudaGetDeviceProperties(&Prop, Device)) != cudaSuccess) {
    Error = errorText(E);
    return false;
  }
  Uuid = formatUuid(reinterpret_cast<const unsigned char *>(Prop.uuid.bytes));
  return true;
}

std::string deviceLineOf(int Device, const cudaDeviceProp &Prop,
                         const std::string &Uuid, const std::string &Timer,
                         const std::string &TimerError) {
  int Clock = 0, MemClock = 0, Driver = 0, Runtime = 0;
  if (cudaDeviceGetAttribute(&Clock, cudaDevAttrClockRate, Device) !=
      cudaSuccess)
    Clock = 0;
  if (cudaDeviceGetAttribute(&MemClock, cudaDevAttrMemoryClockRate, Device) !=
      cudaSuccess)
    MemClock = 0;
  if (cudaDriverGetVersion(&Driver) != cudaSuccess)
    Driver = 0;
  if (cudaRuntimeGetVersion(&Runtime) != cudaSuccess)
    Runtime = 0;
  cudaGetLastError();
  std::string L = "{\"type\":\"device\",\"name\":" + jsonQuote(Prop.name) +
                  ",\"cc\":\"" + std::to_string(Prop.major) + "." +
                  std::to_string(Prop.minor) +
                  "\",\"sms\":" + std::to_string(Prop.multiProcessorCount) +
                  ",\"l2_bytes\":" + std::to_string(Prop.l2CacheSize) +
                  ",\"clock_khz\":" + std::to_string(Clock) +
                  ",\"mem_clock_khz\":" + std::to_string(MemClock) +
                  ",\"bus_width\":" + std::to_string(Prop.memoryBusWidth) +
                  ",\"uuid\":" + jsonQuote(Uuid) +
                  ",\"driver\":" + std::to_string(Driver) +
                  ",\"runtime\":" + std::to_string(Runtime) +
                  ",\"timer\":" + jsonQuote(Timer);
  if (!TimerError.empty())
    L += ",\"timer_error\":" + jsonQuote(TimerError);
  return L + "}";
}

std::string Executor::deviceLine() const {
  return deviceLineOf(Device, Prop, Uuid, UseCupti ? "cupti" : "events",
                      TimerError);
}

bool Executor::allocate(std::string &Error) {
  try {
    ck(cudaStreamCreateWithFlags(&Stream, cudaStreamNonBlocking),
       "cudaStreamCreateWithFlags");
    ck(cudaMalloc(&DStats, sizeof(DevStats)), "cudaMalloc (statistics)");
    ck(cudaMallocHost(&HStats, sizeof(DevStats)),
       "cudaMallocHost (statistics)");
    size_t ScratchBytes = 0;
    for (BufferState &B : Bufs) {
      std::string What = "cudaMalloc (buffer '" + B.Plan->Name + "', " +
                         std::to_string(B.Bytes) + " bytes)";
      ck(cudaMalloc(&B.Dev, B.Bytes), What.c_str());
      if (B.Plan->R != Role::In) {
        B.RefOut.assign(P.Opts.InputSets, nullptr);
        B.RefSumSq.assign(P.Opts.InputSets, 0);
        B.RefFinite.assign(P.Opts.InputSets, 0);
        for (unsigned S = 0; S < P.Opts.InputSets; ++S) {
          std::string W = "cudaMalloc (reference output of '" + B.Plan->Name +
                          "', set " + std::to_string(S) + ")";
          ck(cudaMalloc(&B.RefOut[S], B.Bytes), W.c_str());
        }
      } else {
        ScratchBytes = std::max(ScratchBytes, B.Bytes);
      }
    }
    if (ScratchBytes)
      ck(cudaMalloc(&Scratch, ScratchBytes), "cudaMalloc (scratch)");
    if (P.Opts.FlushL2) {
      FlushBytes = 2 * size_t(std::max(Prop.l2CacheSize, 0));
      if (FlushBytes == 0)
        FlushBytes = size_t(64) << 20;
      ck(cudaMalloc(&Flush, FlushBytes), "cudaMalloc (L2 flush buffer)");
    }
    return true;
  } catch (const CudaFailure &F) {
    Error = F.Text;
    return false;
  }
}

void Executor::generate(const BufferState &B, unsigned Set, void *Dst) {
  const BufferPlan &BP = *B.Plan;
  if (BP.Init == InitKind::File) {
    ck(cudaMemcpyAsync(Dst, B.FileData.data(), B.Bytes, cudaMemcpyHostToDevice,
                       Stream),
       "cudaMemcpyAsync (file input)");
    return;
  }
  int Kind = GenConstant;
  switch (BP.Init) {
  case InitKind::Uniform: Kind = GenUniform; break;
  case InitKind::Normal: Kind = GenNormal; break;
  case InitKind::Iota: Kind = GenIota; break;
  default: Kind = GenConstant; break;
  }
  uint64_t Key = streamKey(P.Opts.Seed, Set, B.Index);
  uint64_t ILo = 0, IRange = 0;
  if (!isFloatingPoint(BP.Type) && BP.Init == InitKind::Uniform) {
    bool Signed = BP.Type == DType::I8 || BP.Type == DType::I16 || BP.Type == DType::I32 ||
                  BP.Type == DType::I64;
    uint64_t Lo = Signed ? uint64_t(int64_t(BP.A)) : uint64_t(BP.A);
    uint64_t Hi = Signed ? uint64_t(int64_t(BP.B)) : uint64_t(BP.B);
    ILo = Lo;
    IRange = Hi - Lo + 1; // 0: the full 64-bit range
  }
  unsigned Grid = gridFor(BP.Count);
  withType(BP.Type, [&](auto Tag) {
    using T = decltype(Tag);
    genKernel<T><<<Grid, 256, 0, Stream>>>(static_cast<T *>(Dst), BP.Count,
                                           Kind, BP.A, BP.B, Key, ILo, IRange);
  });
  ck(cudaGetLastError(), "input generator launch");
}

void Executor::fillInputs(unsigned Set) {
  for (BufferState &B : Bufs)
    if (B.Plan->R != Role::Out)
      generate(B, Set, B.Dev);
}

/// Whether C may change B between launches: an inout buffer, or an input
/// the check saw C change.
bool Executor::mayChange(const BufferState &B, const CandState &C) const {
  if (B.Plan->R == Role::InOut)
    return true;
  if (B.Plan->R != Role::In)
    return false;
  return std::any_of(C.Changes.begin(), C.Changes.end(),
                     [&](const InputChange &Ch) {
                       return Ch.Buffer == B.Plan->Name;
                     });
}

/// After fillInputs(0): keeps a pristine copy of every buffer C may change,
/// so that each timed launch starts from the same inputs (a sort must not
/// time already sorted keys). Returns true when a buffer has no copy (no
/// memory) and is regenerated by a kernel instead.
bool Executor::snapshotInputs(CandState &C) {
  C.Restored.clear();
  bool Regen = false;
  for (BufferState &B : Bufs) {
    if (!mayChange(B, C))
      continue;
    C.Restored.push_back(B.Plan->Name);
    if (!B.Pristine && !B.PristineTried) {
      B.PristineTried = true;
      if (cudaMalloc(&B.Pristine, B.Bytes) != cudaSuccess) {
        cudaGetLastError();
        B.Pristine = nullptr;
        std::fprintf(stderr,
                     "forge-worker: warning: no device memory for a pristine "
                     "copy of '%s' (%zu bytes); it is regenerated before "
                     "every timed launch, and the launches are timed with "
                     "events\n",
                     B.Plan->Name.c_str(), B.Bytes);
      }
    }
    if (B.Pristine)
      ck(cudaMemcpyAsync(B.Pristine, B.Dev, B.Bytes, cudaMemcpyDeviceToDevice,
                         Stream),
         "cudaMemcpyAsync (pristine copy)");
    else
      Regen = true;
  }
  C.Regenerated |= Regen;
  return Regen;
}

/// Restores what C may have changed, before a timed launch and outside the
/// timed region: copies from the pristine copy (no kernel, so CUPTI's
/// kernel records stay the candidate's), or regenerates.
cudaError_t Executor::restoreInputs(const CandState &C) {
  for (BufferState &B : Bufs) {
    if (!mayChange(B, C))
      continue;
    if (!B.Pristine) {
      generate(B, 0, B.Dev);
      continue;
    }
    cudaError_t E = cudaMemcpyAsync(B.Dev, B.Pristine, B.Bytes,
                                    cudaMemcpyDeviceToDevice, Stream);
    if (E != cudaSuccess)
      return E;
  }
  return cudaSuccess;
}

void Executor::poisonOutputs(int Which) {
  for (BufferState &B : Bufs) {
    if (B.Plan->R != Role::Out)
      continue;
    DType T = B.Plan->Type;
    if (!isFloatingPoint(T)) {
      ck(cudaMemsetAsync(B.Dev, Which == 1 ? 0x7F : 0x80, B.Bytes, Stream),
         "cudaMemsetAsync (poison)");
      continue;
    }
    uint64_t Bits = poisonBits(T, Which);
    unsigned Grid = gridFor(B.Plan->Count);
    withBits(dtypeSize(T), [&](auto Tag) {
      using U = decltype(Tag);
      fillKernel<U><<<Grid, 256, 0, Stream>>>(static_cast<U *>(B.Dev),
                                              B.Plan->Count, U(Bits));
    });
    ck(cudaGetLastError(), "poison fill launch");
  }
}

void Executor::resetStats() {
  DevStats Init{};
  Init.FirstBad = ~0ULL;
  Init.FirstUnwritten = ~0ULL;
  *HStats = Init;
  ck(cudaMemcpyAsync(DStats, HStats, sizeof(DevStats), cudaMemcpyHostToDevice,
                     Stream),
     "cudaMemcpyAsync (statistics)");
  // HStats is read by the copy above; the next write to it comes after a
  // synchronisation in readStats.
}

DevStats Executor::readStats() {
  ck(cudaGetLastError(), "comparison kernel launch");
  ck(cudaMemcpyAsync(HStats, DStats, sizeof(DevStats), cudaMemcpyDeviceToHost,
                     Stream),
     "cudaMemcpyAsync (statistics)");
  ck(cudaStreamSynchronize(Stream), "cudaStreamSynchronize (comparison)");
  return *HStats;
}

/// A harness compiled to a cubin holds device code alone: the kernel is
/// found by its mangled name (the plan's symbol) and launched through the
/// runtime like a registered one (cudaLaunchKernel and cudaFuncGetAttributes
/// take a cudaKernel_t). No code of the candidate runs on the host.
bool Executor::loadCubin(CandState &C) {
  const CandidatePlan &CP = *C.Plan;
  auto It = Cubins.find(CP.Library);
  if (It == Cubins.end()) {
    cudaLibrary_t Lib = nullptr;
    cudaError_t E = cudaLibraryLoadFromFile(&Lib, CP.Library.c_str(), nullptr, nullptr, 0,
                                            nullptr, nullptr, 0);
    if (E != cudaSuccess) {
      cudaGetLastError();
      C.LoadFailed = true;
      C.Error = "cudaLibraryLoadFromFile(" + CP.Library + "): " + errorText(E);
      return false;
    }
    It = Cubins.emplace(CP.Library, Lib).first;
  }
  cudaKernel_t K = nullptr;
  cudaError_t E = cudaLibraryGetKernel(&K, It->second, CP.Symbol.c_str());
  if (E != cudaSuccess || !K) {
    cudaGetLastError();
    C.LoadFailed = true;
    C.Error = "cudaLibraryGetKernel(" + CP.Symbol + "): " + errorText(E);
    return false;
  }
  C.Fn = reinterpret_cast<const void *>(K);
  return true;
}

bool Executor::load(CandState &C) {
  const CandidatePlan &CP = *C.Plan;
  auto EndsWith = [](const std::string &S, const char *Suffix) {
    size_t N = std::strlen(Suffix);
    return S.size() >= N && S.compare(S.size() - N, N, Suffix) == 0;
  };
  if (EndsWith(CP.Library, ".cubin")) {
    if (!loadCubin(C))
      return false;
    return bindArguments(C);
  }
  dlerror();
  void *H = ::dlopen(CP.Library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!H) {
    const char *E = dlerror();
    C.LoadFailed = true;
    C.Error = std::string("dlopen: ") + (E ? E : CP.Library.c_str());
    return false;
  }
  // The library stays loaded until the process ends: unloading it would
  // unregister its kernels while CUPTI or the runtime may still refer to
  // them.
  using AbiFn = int (*)(void);
  using EntryFn = const void *(*)(void);
  dlerror();
  auto Abi = reinterpret_cast<AbiFn>(::dlsym(H, "forge_harness_abi"));
  if (!Abi) {
    const char *E = dlerror();
    C.LoadFailed = true;
    C.Error = std::string("dlsym forge_harness_abi: ") +
              (E ? E : "symbol not found");
    return false;
  }
  int Version = Abi();
  if (Version != 1) {
    C.LoadFailed = true;
    C.Error = "forge_harness_abi() returned " + std::to_string(Version) +
              "; this worker needs 1";
    return false;
  }
  dlerror();
  auto Entry = reinterpret_cast<EntryFn>(::dlsym(H, CP.Symbol.c_str()));
  if (!Entry) {
    const char *E = dlerror();
    C.LoadFailed = true;
    C.Error = "dlsym " + CP.Symbol + ": " + (E ? E : "symbol not found");
    return false;
  }
  C.Fn = Entry();
  if (!C.Fn) {
    C.LoadFailed = true;
    C.Error = CP.Symbol + "() returned a null kernel";
    return false;
  }
  return bindArguments(C);
}

/// The kernel's attributes (a check that the runtime knows it), its
/// arguments from the plan, and the dynamic shared memory it may use.
bool Executor::bindArguments(CandState &C) {
  const CandidatePlan &CP = *C.Plan;
  cudaFuncAttributes Attr;
  cudaError_t E = cudaFuncGetAttributes(&Attr, C.Fn);
  if (E != cudaSuccess) {
    cudaGetLastError();
    if (classify(E, C) == LaunchOutcome::Crashed)
      return false;
    C.LaunchFailed = false;
    C.LoadFailed = true;
    C.Error = "cudaFuncGetAttributes: " + errorText(E);
    if (E == cudaErrorInvalidDeviceFunction ||
        E == cudaErrorInvalidResourceHandle)
      C.Error += " (the worker's CUDA runtime does not know the kernel: the "
                 "harness must be linked with the shared runtime, nvcc "
                 "-cudart shared)";
    return false;
  }
  // Arguments: one 8-byte slot each, filled with the dtype's bytes.
  C.ArgStore.assign(CP.Args.size(), 0);
  for (size_t I = 0; I < CP.Args.size(); ++I) {
    const ArgPlan &A = CP.Args[I];
    unsigned char *Slot = reinterpret_cast<unsigned char *>(&C.ArgStore[I]);
    if (A.IsBuffer) {
      void *Ptr = nullptr;
      for (BufferState &B : Bufs)
        if (B.Plan->Name == A.Buffer)
          Ptr = B.Dev;
      std::memcpy(Slot, &Ptr, sizeof Ptr);
      continue;
    }
    switch (A.Type) {
    case DType::F16: {
      __half V = __double2half(A.FloatValue);
      std::memcpy(Slot, &V, sizeof V);
      break;
    }
    case DType::BF16: {
      __nv_bfloat16 V = __double2bfloat16(A.FloatValue);
      std::memcpy(Slot, &V, sizeof V);
      break;
    }
    case DType::F32: {
      float V = float(A.FloatValue);
      std::memcpy(Slot, &V, sizeof V);
      break;
    }
    case DType::F64: std::memcpy(Slot, &A.FloatValue, 8); break;
    case DType::I8:
    case DType::U8: {
      uint8_t V = uint8_t(A.IntValue);
      std::memcpy(Slot, &V, 1);
      break;
    }
    case DType::I16:
    case DType::U16: {
      uint16_t V = uint16_t(A.IntValue);
      std::memcpy(Slot, &V, 2);
      break;
    }
    case DType::I32:
    case DType::U32: {
      uint32_t V = uint32_t(A.IntValue);
      std::memcpy(Slot, &V, 4);
      break;
    }
    case DType::I64:
    case DType::U64: std::memcpy(Slot, &A.IntValue, 8); break;
    }
  }
  C.ArgPtrs.clear();
  for (uint64_t &S : C.ArgStore)
    C.ArgPtrs.push_back(&S);
  if (CP.SharedBytes > 48 * 1024) {
    E = cudaFuncSetAttribute(C.Fn, cudaFuncAttributeMaxDynamicSharedMemorySize,
                             int(std::min<uint64_t>(CP.SharedBytes, INT32_MAX)));
    if (E != cudaSuccess) {
      if (classify(E, C) == LaunchOutcome::Crashed)
        return false;
      C.LaunchFailed = true;
      C.Error = "cudaFuncSetAttribute(MaxDynamicSharedMemorySize, " +
                std::to_string(CP.SharedBytes) + "): " + errorText(E);
      return false;
    }
  }
  return true;
}

cudaError_t Executor::launch(const CandState &C) {
  const CandidatePlan &CP = *C.Plan;
  dim3 Grid(CP.Grid[0], CP.Grid[1], CP.Grid[2]);
  dim3 Block(CP.Block[0], CP.Block[1], CP.Block[2]);
  cudaError_t E =
      cudaLaunchKernel(C.Fn, Grid, Block,
                       const_cast<void **>(C.ArgPtrs.empty()
                                               ? nullptr
                                               : C.ArgPtrs.data()),
                       size_t(CP.SharedBytes), Stream);
  cudaError_t Last = cudaGetLastError();
  return E != cudaSuccess ? E : Last;
}

/// Sorts a failed launch into launch-failed (the context is still usable)
/// and crashed (a sticky error), and records it on C.
LaunchOutcome Executor::classify(cudaError_t E, CandState &C) {
  cudaGetLastError();
  bool Sticky = isStickyCode(E);
  if (!Sticky) {
    // An error the table does not know: probe the context.
    cudaError_t Probe = cudaDeviceSynchronize();
    if (Probe == cudaSuccess)
      Probe = cudaGetLastError();
    Sticky = Probe != cudaSuccess && isStickyCode(Probe);
    if (Probe != cudaSuccess && !Sticky) {
      // Still failing: the context is not usable either.
      cudaGetLastError();
      Sticky = cudaDeviceSynchronize() != cudaSuccess;
    }
  }
  std::string Text = errorText(E);
  if (E == cudaErrorInvalidDeviceFunction ||
      E == cudaErrorInvalidResourceHandle)
    Text += " (is the harness linked with the shared CUDA runtime, nvcc "
            "-cudart shared?)";
  C.Error = Text;
  if (Sticky) {
    C.Crashed = true;
    return LaunchOutcome::Crashed;
  }
  C.LaunchFailed = true;
  return LaunchOutcome::LaunchFailed;
}

LaunchOutcome Executor::launchAndSync(CandState &C) {
  cudaError_t E = launch(C);
  if (E == cudaSuccess)
    E = cudaStreamSynchronize(Stream);
  if (E == cudaSuccess)
    return LaunchOutcome::Ok;
  return classify(E, C);
}

/// Compares every out/inout buffer of C with the reference's for Set.
void Executor::compareOutputs(CandState &C, unsigned Set) {
  for (BufferState &B : Bufs) {
    const BufferPlan &BP = *B.Plan;
    if (BP.R == Role::In)
      continue;
    bool Float = isFloatingPoint(BP.Type);
    CompareParams Pm{};
    Pm.N = BP.Count;
    Pm.IsOut = BP.R == Role::Out;
    double RelTol = -1; // < 0: no rel_l2 check
    if (Float) {
      double Rel = BP.RelL2 ? *BP.RelL2 : defaultRelL2(BP.Type);
      if (BP.RelL2 || !BP.MaxAbs)
        RelTol = Rel;
      Pm.Mode = BP.MaxAbs ? CmpFloatAbs : CmpFloatRel;
      Pm.MaxAbs = BP.MaxAbs ? *BP.MaxAbs : 0;
      Pm.RelBound = 100.0 * Rel;
      Pm.Rms = B.RefFinite[Set] > 0
                   ? std::sqrt(B.RefSumSq[Set] / B.RefFinite[Set])
                   : 0;
    } else {
      Pm.Mode = BP.MaxAbs ? CmpIntAbs : CmpIntExact;
      Pm.MaxAbs = BP.MaxAbs ? *BP.MaxAbs : 0;
      if (BP.RelL2)
        RelTol = *BP.RelL2;
    }
    uint64_t Poison = poisonBits(BP.Type, 1);
    resetStats();
    unsigned Grid = gridFor(BP.Count);
    withType(BP.Type, [&](auto Tag) {
      using T = decltype(Tag);
      using Bits = typename Elem<T>::Bits;
      compareKernel<T><<<Grid, 256, 0, Stream>>>(
          static_cast<const T *>(B.Dev), static_cast<const T *>(B.RefOut[Set]),
          Pm, Bits(Poison), DStats);
    });
    DevStats S = readStats();
    CheckResult R;
    R.Set = Set;
    R.Buffer = BP.Name;
    R.IsOut = Pm.IsOut;
    R.Count = BP.Count;
    double RefNorm = std::sqrt(B.RefSumSq[Set]);
    double DiffNorm = std::sqrt(S.SumSqDiff);
    R.RelL2 = RefNorm > 0 ? DiffNorm / RefNorm : DiffNorm;
    double MaxAbs = 0;
    std::memcpy(&MaxAbs, &S.MaxAbsBits, sizeof MaxAbs);
    R.MaxAbs = MaxAbs;
    R.OverBound = S.OverBound;
    R.Unwritten = S.Unwritten;
    R.Poisoned = S.Poisoned;
    R.FirstBad = S.FirstBad == ~0ULL ? -1 : int64_t(S.FirstBad);
    R.FirstUnwritten =
        S.FirstUnwritten == ~0ULL ? -1 : int64_t(S.FirstUnwritten);
    R.Wrong = R.OverBound > 0 || (RelTol >= 0 && R.RelL2 > RelTol);
    C.Checks.push_back(R);
  }
}

/// Compares every `in` buffer with a regenerated copy of Set.
void Executor::compareInputs(CandState &C, unsigned Set) {
  for (BufferState &B : Bufs) {
    if (B.Plan->R != Role::In)
      continue;
    generate(B, Set, Scratch);
    resetStats();
    unsigned Grid = gridFor(B.Plan->Count);
    withBits(dtypeSize(B.Plan->Type), [&](auto Tag) {
      using U = decltype(Tag);
      diffKernel<U><<<Grid, 256, 0, Stream>>>(static_cast<const U *>(B.Dev),
                                              static_cast<const U *>(Scratch),
                                              B.Plan->Count, DStats);
    });
    DevStats S = readStats();
    if (S.OverBound) {
      InputChange Ch;
      Ch.Set = Set;
      Ch.Buffer = B.Plan->Name;
      Ch.Elements = S.OverBound;
      Ch.First = S.FirstBad == ~0ULL ? -1 : int64_t(S.FirstBad);
      C.Changes.push_back(Ch);
    }
  }
}

/// Runs the reference on every input set and keeps its outputs. Returns
/// false when it failed (the caller writes reference-failed).
bool Executor::checkReference(CandState &R) {
  unsigned Sets = P.Opts.InputSets;
  for (unsigned S = 0; S < Sets; ++S) {
    fillInputs(S);
    poisonOutputs(1);
    if (launchAndSync(R) != LaunchOutcome::Ok)
      return false;
    bool AnyPoison = false;
    std::vector<uint64_t> Poisoned(Bufs.size(), 0);
    for (size_t BI = 0; BI < Bufs.size(); ++BI) {
      BufferState &B = Bufs[BI];
      if (B.Plan->R == Role::In)
        continue;
      ck(cudaMemcpyAsync(B.RefOut[S], B.Dev, B.Bytes, cudaMemcpyDeviceToDevice,
                         Stream),
         "cudaMemcpyAsync (reference output)");
      resetStats();
      uint64_t Poison = poisonBits(B.Plan->Type, 1);
      int IsOut = B.Plan->R == Role::Out;
      unsigned Grid = gridFor(B.Plan->Count);
      withType(B.Plan->Type, [&](auto Tag) {
        using T = decltype(Tag);
        using Bits = typename Elem<T>::Bits;
        refStatsKernel<T><<<Grid, 256, 0, Stream>>>(
            static_cast<const T *>(B.RefOut[S]), B.Plan->Count, Bits(Poison),
            IsOut, DStats);
      });
      DevStats St = readStats();
      B.RefSumSq[S] = St.SumSqRef;
      B.RefFinite[S] = double(St.Finite);
      Poisoned[BI] = St.Poisoned;
      AnyPoison |= St.Poisoned > 0;
    }
    compareInputs(R, S);

    // Elements equal to the poison may be values the reference wrote (an
    // i8 kernel that saturates to 127): run it again with the other poison,
    // and count only the elements that held the poison both times.
    std::vector<uint64_t> Unwritten(Bufs.size(), 0);
    std::vector<int64_t> FirstUnwritten(Bufs.size(), -1);
    if (AnyPoison) {
      fillInputs(S);
      poisonOutputs(2);
      if (launchAndSync(R) != LaunchOutcome::Ok)
        return false;
      for (size_t BI = 0; BI < Bufs.size(); ++BI) {
        if (!Poisoned[BI])
          continue;
        BufferState &B = Bufs[BI];
        uint64_t P1 = poisonBits(B.Plan->Type, 1),
                 P2 = poisonBits(B.Plan->Type, 2);
        resetStats();
        unsigned Grid = gridFor(B.Plan->Count);
        withBits(dtypeSize(B.Plan->Type), [&](auto Tag) {
          using U = decltype(Tag);
          bothPoisonKernel<U><<<Grid, 256, 0, Stream>>>(
              static_cast<const U *>(B.RefOut[S]),
              static_cast<const U *>(B.Dev), B.Plan->Count, U(P1), U(P2),
              DStats);
        });
        DevStats St = readStats();
        Unwritten[BI] = St.Unwritten;
        FirstUnwritten[BI] =
            St.FirstUnwritten == ~0ULL ? -1 : int64_t(St.FirstUnwritten);
      }
    }
    for (size_t BI = 0; BI < Bufs.size(); ++BI) {
      BufferState &B = Bufs[BI];
      if (B.Plan->R == Role::In)
        continue;
      CheckResult C;
      C.Set = S;
      C.Buffer = B.Plan->Name;
      C.IsOut = B.Plan->R == Role::Out;
      C.Count = B.Plan->Count;
      C.Unwritten = Unwritten[BI];
      C.FirstUnwritten = FirstUnwritten[BI];
      R.Checks.push_back(C);
    }
  }
  R.Checked = true;
  return true;
}

void Executor::checkCandidate(CandState &C) {
  for (unsigned S = 0; S < P.Opts.InputSets; ++S) {
    fillInputs(S);
    poisonOutputs(1);
    if (launchAndSync(C) != LaunchOutcome::Ok)
      return;
    compareOutputs(C, S);
    compareInputs(C, S);
  }
  C.Checked = true;
}

//===----------------------------------------------------------------------===//
// Timing
//===----------------------------------------------------------------------===//

LaunchOutcome Executor::warmUp(CandState &C) {
  C.Reps = P.Opts.Reps;
  unsigned N = P.Opts.Warmup;
  bool Estimate = P.Opts.MinTimeMs > 0;
  if (Estimate && N == 0)
    N = 1;
  if (N == 0)
    return LaunchOutcome::Ok;
  fillInputs(0);
  snapshotInputs(C);
  ck(cudaStreamSynchronize(Stream), "cudaStreamSynchronize (inputs)");
  if (Events.size() < 2) {
    while (Events.size() < 2) {
      cudaEvent_t Ev;
      ck(cudaEventCreate(&Ev), "cudaEventCreate");
      Events.push_back(Ev);
    }
  }
  ck(cudaEventRecord(Events[0], Stream), "cudaEventRecord");
  for (unsigned I = 0; I < N; ++I) {
    cudaError_t E = restoreInputs(C);
    if (E == cudaSuccess && Flush)
      E = cudaMemsetAsync(Flush, 0, FlushBytes, Stream);
    if (E == cudaSuccess)
      E = launch(C);
    if (E != cudaSuccess)
      return classify(E, C);
  }
  cudaError_t E = cudaEventRecord(Events[1], Stream);
  if (E == cudaSuccess)
    E = cudaStreamSynchronize(Stream);
  if (E != cudaSuccess)
    return classify(E, C);
  if (Estimate) {
    float Ms = 0;
    ck(cudaEventElapsedTime(&Ms, Events[0], Events[1]),
       "cudaEventElapsedTime");
    double PerLaunch = double(Ms) / N;
    if (PerLaunch > 0) {
      double Want = std::ceil(P.Opts.MinTimeMs / PerLaunch);
      Want = std::min(Want, 10000.0);
      C.Reps = std::max(C.Reps, unsigned(Want));
    }
  }
  return LaunchOutcome::Ok;
}

LaunchOutcome Executor::timedBlock(CandState &C, unsigned Reps,
                                   std::vector<double> &Ns) {
  Ns.clear();
  fillInputs(0);
  // A regenerating restore launches the generator kernel between the timed
  // launches, which CUPTI would count: events time only the launch.
  bool Regen = snapshotInputs(C);
  ck(cudaStreamSynchronize(Stream), "cudaStreamSynchronize (inputs)");
  bool Cupti = UseCupti && !Regen;
  if (Cupti) {
    std::string Err;
    if (!cuptiDiscard(Err)) {
      std::fprintf(stderr,
                   "forge-worker: warning: CUPTI failed (%s); timing with "
                   "events from now on\n",
                   Err.c_str());
      cuptiStop();
      UseCupti = Cupti = false;
    }
  }
  if (!Cupti)
    while (Events.size() < 2 * size_t(Reps)) {
      cudaEvent_t Ev;
      ck(cudaEventCreate(&Ev), "cudaEventCreate");
      Events.push_back(Ev);
    }
  for (unsigned K = 0; K < Reps; ++K) {
    // Restore first, then flush: the restore's writes must not leave the
    // inputs in L2 for the launch.
    cudaError_t E = restoreInputs(C);
    if (E == cudaSuccess && Flush)
      E = cudaMemsetAsync(Flush, 0, FlushBytes, Stream);
    if (E == cudaSuccess && !Cupti)
      E = cudaEventRecord(Events[2 * K], Stream);
    if (E == cudaSuccess)
      E = launch(C);
    if (E == cudaSuccess && !Cupti)
      E = cudaEventRecord(Events[2 * K + 1], Stream);
    if (E != cudaSuccess)
      return classify(E, C);
  }
  cudaError_t E = cudaStreamSynchronize(Stream);
  if (E != cudaSuccess)
    return classify(E, C);
  if (Cupti) {
    std::string Err;
    if (cuptiCollect(Reps, Ns, Err)) {
      C.TimedCupti = true;
      return LaunchOutcome::Ok;
    }
    std::fprintf(stderr,
                 "forge-worker: warning: CUPTI records for '%s' are "
                 "unusable (%s); timing with events from now on\n",
                 C.Plan->Id.c_str(), Err.c_str());
    cuptiStop();
    UseCupti = false;
    return timedBlock(C, Reps, Ns);
  }
  for (unsigned K = 0; K < Reps; ++K) {
    float Ms = 0;
    ck(cudaEventElapsedTime(&Ms, Events[2 * K], Events[2 * K + 1]),
       "cudaEventElapsedTime");
    Ns.push_back(double(Ms) * 1e6);
  }
  C.TimedEvents = true;
  return LaunchOutcome::Ok;
}

/// Warm-up, then the interleaved rounds. Returns false after writing the
/// reference-failed line (the reference failed while timed).
bool Executor::timeAll() {
  for (CandState &C : Cands) {
    if (!C.live())
      continue;
    progress(C.Plan->Id);
    LaunchOutcome Out = warmUp(C);
    if (Out == LaunchOutcome::Crashed)
      crashed(C);
    if (Out == LaunchOutcome::LaunchFailed && C.Plan->Reference) {
      referenceFailed(C, CandidateStatus::LaunchFailed, C.Error);
      return false;
    }
  }
  std::vector<double> Ns;
  for (unsigned Round = 0; Round < P.Opts.Rounds; ++Round) {
    for (CandState &C : Cands) {
      if (!C.live())
        continue;
      progress(C.Plan->Id);
      LaunchOutcome Out = timedBlock(C, C.Reps, Ns);
      if (Out == LaunchOutcome::Crashed)
        crashed(C);
      if (Out == LaunchOutcome::LaunchFailed) {
        if (C.Plan->Reference) {
          referenceFailed(C, CandidateStatus::LaunchFailed, C.Error);
          return false;
        }
        continue; // no longer live; its line says launch-failed
      }
      C.Samples.insert(C.Samples.end(), Ns.begin(), Ns.end());
      C.RoundMedians.push_back(medianOf(Ns));
    }
  }
  return true;
}

//===----------------------------------------------------------------------===//
// Results
//===----------------------------------------------------------------------===//

std::vector<CandidateStatus> Executor::reasons(const CandState &C) const {
  std::vector<CandidateStatus> R;
  if (C.Crashed)
    R.push_back(CandidateStatus::Crashed);
  if (C.LoadFailed)
    R.push_back(CandidateStatus::LoadFailed);
  if (C.LaunchFailed)
    R.push_back(CandidateStatus::LaunchFailed);
  if (C.Plan->Reference)
    return R;
  // no-work: nothing written at all, or faster than the floor.
  bool NoWork = false;
  size_t OutChecks = 0;
  bool AllPoisoned = true;
  for (const CheckResult &K : C.Checks) {
    if (!K.IsOut)
      continue;
    ++OutChecks;
    AllPoisoned &= K.Poisoned == K.Count;
  }
  if (C.Checked && OutChecks > 0 && AllPoisoned)
    NoWork = true;
  if (!C.Samples.empty() && P.Work && Ceil) {
    double Arith = P.Work->Type == DType::F64 ? Ceil->Fp64Gflops
                                              : Ceil->Fp32Gflops;
    double Floor = std::max(P.Work->Bytes / Ceil->DramGbps,
                            P.Work->Flops / Arith);
    double Median = statsOf(C.Samples).Median;
    if (Floor > 0 && Median < P.Opts.FloorFactor * Floor)
      NoWork = true;
  }
  if (NoWork)
    R.push_back(CandidateStatus::NoWork);
  if (!C.Changes.empty())
    R.push_back(CandidateStatus::WritesInput);
  bool Unwritten = false, Wrong = false;
  for (const CheckResult &K : C.Checks) {
    Unwritten |= K.Unwritten > 0;
    Wrong |= K.Wrong;
  }
  if (Unwritten)
    R.push_back(CandidateStatus::Unwritten);
  if (Wrong)
    R.push_back(CandidateStatus::Wrong);
  return R;
}

std::string Executor::candidateLine(const CandState &C) const {
  std::vector<CandidateStatus> Rs = reasons(C);
  CandidateStatus Status = Rs.empty() ? CandidateStatus::Ok : Rs.front();
  std::string L = "{\"type\":\"candidate\",\"id\":" + jsonQuote(C.Plan->Id) +
                  ",\"reference\":" + (C.Plan->Reference ? "true" : "false") +
                  ",\"label\":" + jsonQuote(C.Plan->Label) +
                  ",\"status\":" + jsonQuote(statusName(Status)) +
                  ",\"reasons\":[";
  for (size_t I = 0; I < Rs.size(); ++I)
    L += (I ? "," : "") + jsonQuote(statusName(Rs[I]));
  L += "],\"error\":" + jsonQuote(C.Error) + ",\"checks\":[";
  for (size_t I = 0; I < C.Checks.size(); ++I) {
    const CheckResult &K = C.Checks[I];
    L += std::string(I ? "," : "") + "{\"set\":" + std::to_string(K.Set) +
         ",\"buffer\":" + jsonQuote(K.Buffer) +
         ",\"rel_l2\":" + jsonNumber(K.RelL2) +
         ",\"max_abs\":" + jsonNumber(K.MaxAbs) +
         ",\"over_bound\":" + std::to_string(K.OverBound) +
         ",\"unwritten\":" + std::to_string(K.Unwritten) +
         ",\"first_bad\":" + std::to_string(K.FirstBad) +
         ",\"first_unwritten\":" + std::to_string(K.FirstUnwritten) + "}";
  }
  L += "],\"inputs_changed\":[";
  for (size_t I = 0; I < C.Changes.size(); ++I) {
    const InputChange &Ch = C.Changes[I];
    L += std::string(I ? "," : "") + "{\"set\":" + std::to_string(Ch.Set) +
         ",\"buffer\":" + jsonQuote(Ch.Buffer) +
         ",\"elements\":" + std::to_string(Ch.Elements) +
         ",\"first\":" + std::to_string(Ch.First) + "}";
  }
  L += "]";

  bool Timed = !C.Samples.empty();
  TimeStats T = statsOf(C.Samples);
  if (Timed)
    L += ",\"time_ns\":{\"median\":" + jsonNumber(T.Median) +
         ",\"min\":" + jsonNumber(T.Min) + ",\"max\":" + jsonNumber(T.Max) +
         ",\"p10\":" + jsonNumber(T.P10) + ",\"p90\":" + jsonNumber(T.P90) +
         ",\"spread\":" + jsonNumber(T.Spread) +
         ",\"samples\":" + std::to_string(T.Samples) + "}";
  else
    L += ",\"time_ns\":null";
  L += ",\"round_medians_ns\":[";
  for (size_t I = 0; I < C.RoundMedians.size(); ++I)
    L += (I ? "," : "") + jsonNumber(C.RoundMedians[I]);
  L += "]";
  L += ",\"reps\":" + std::to_string(Timed ? C.Reps : 0);
  L += ",\"restored_per_launch\":[";
  for (size_t I = 0; I < C.Restored.size(); ++I)
    L += (I ? "," : "") + jsonQuote(C.Restored[I]);
  L += "],\"restore\":";
  L += C.Restored.empty() ? "null"
       : C.Regenerated    ? "\"regenerated\""
                          : "\"pristine-copy\"";
  L += ",\"timer\":";
  if (!Timed)
    L += "null";
  else if (C.TimedCupti && C.TimedEvents)
    L += "\"mixed\"";
  else
    L += C.TimedCupti ? "\"cupti\"" : "\"events\"";

  const CandState &Ref = Cands.front();
  double Baseline = NAN, Noise = NAN;
  if (!Ref.Samples.empty()) {
    Baseline = statsOf(Ref.Samples).Median;
    std::vector<double> RM = Ref.RoundMedians;
    if (!RM.empty()) {
      double Mid = medianOf(RM);
      auto [Lo, Hi] = std::minmax_element(RM.begin(), RM.end());
      Noise = Mid > 0 ? (*Hi - *Lo) / Mid : NAN;
    }
  }
  double Speedup = Timed && T.Median > 0 ? Baseline / T.Median : NAN;
  double Floor = NAN, Gbps = NAN, Gflops = NAN, Fraction = NAN;
  if (P.Work && Ceil) {
    double Arith = P.Work->Type == DType::F64 ? Ceil->Fp64Gflops
                                              : Ceil->Fp32Gflops;
    Floor = std::max(P.Work->Bytes / Ceil->DramGbps, P.Work->Flops / Arith);
    if (Timed && T.Median > 0) {
      Gbps = P.Work->Bytes / T.Median;
      Gflops = P.Work->Flops / T.Median;
      Fraction = std::max(Gbps / Ceil->DramGbps, Gflops / Arith);
    }
  }
  L += ",\"baseline_median_ns\":" + jsonNumber(Baseline) +
       ",\"noise\":" + jsonNumber(Noise) + ",\"speedup\":" +
       jsonNumber(Speedup) + ",\"floor_ns\":" + jsonNumber(Floor) +
       ",\"gbps\":" + jsonNumber(Gbps) + ",\"gflops\":" + jsonNumber(Gflops) +
       ",\"roofline_fraction\":" + jsonNumber(Fraction) +
       ",\"process\":" + std::to_string(O.Process) + "}";
  return L;
}

int Executor::referenceFailed(const CandState &R, CandidateStatus Status,
                              const std::string &Error) {
  emit("{\"type\":\"reference-failed\",\"id\":" + jsonQuote(R.Plan->Id) +
       ",\"status\":" + jsonQuote(statusName(Status)) +
       ",\"error\":" + jsonQuote(Error) +
       ",\"process\":" + std::to_string(O.Process) + "}");
  std::fprintf(stderr, "forge-worker: the reference '%s' failed (%s): %s\n",
               R.Plan->Id.c_str(), statusName(Status), Error.c_str());
  return 1;
}

/// After a sticky error: the line, the message the supervisor looks for,
/// and the end of the process.
void Executor::crashed(CandState &C) {
  std::fprintf(stderr, "forge-worker: cuda-error: %s\n", C.Error.c_str());
  std::fflush(stderr);
  if (C.Plan->Reference) {
    referenceFailed(C, CandidateStatus::Crashed, C.Error);
    throw StickyExit{1};
  }
  C.Crashed = true;
  emit(candidateLine(C));
  C.Written = true;
  throw StickyExit{3};
}

int Executor::run() {
  // Which candidates: the reference always, then the selected ones.
  std::set<std::string> Only(O.Only.begin(), O.Only.end());
  for (const std::string &Id : O.Only)
    if (!P.findCandidate(Id)) {
      std::fprintf(stderr,
                   "forge-worker: --only names '%s', which the plan does not "
                   "have\n",
                   Id.c_str());
      return 2;
    }
  if (P.Candidates.empty() || !P.Candidates.front().Reference) {
    std::fprintf(stderr, "forge-worker: the plan has no reference\n");
    return 2;
  }
  for (const CandidatePlan &CP : P.Candidates) {
    bool Selected = Only.empty() || Only.count(CP.Id);
    if (!Selected && !CP.Reference)
      continue;
    CandState C;
    C.Plan = &CP;
    C.Selected = Selected;
    Cands.push_back(std::move(C));
  }
  for (size_t I = 0; I < P.Buffers.size(); ++I) {
    BufferState B;
    B.Plan = &P.Buffers[I];
    B.Index = I;
    B.Bytes = size_t(B.Plan->Count) * dtypeSize(B.Plan->Type);
    Bufs.push_back(std::move(B));
  }
  std::string Error;
  if (!readFiles(Error)) {
    std::fprintf(stderr, "forge-worker: %s\n", Error.c_str());
    return 2;
  }

  // The timer, before the context exists.
  UseCupti = false;
  if (P.Opts.Cupti) {
    if (cuptiStart(TimerError)) {
      UseCupti = true;
    } else {
      std::fprintf(stderr,
                   "forge-worker: warning: CUPTI cannot start (%s); timing "
                   "with CUDA events\n",
                   TimerError.c_str());
    }
  }
  if (!initDevice(Error)) {
    std::fprintf(stderr, "forge-worker: no usable GPU: %s\n", Error.c_str());
    return 1;
  }
  if (!emit(deviceLine()))
    return 1;
  CeilingValues CV;
  if (getCeilings(Uuid, false, CV, Error)) {
    Ceil = CV;
    if (!emit(ceilingsLine(CV)))
      return 1;
  } else {
    std::fprintf(stderr,
                 "forge-worker: warning: %s; results have no roofline\n",
                 Error.c_str());
    cudaGetLastError();
  }
  if (!allocate(Error)) {
    std::fprintf(stderr, "forge-worker: cannot set up the job: %s\n",
                 Error.c_str());
    return 1;
  }

  // Candidate code runs from here on (docs/sandbox.md).
  if (!sandbox::enter())
    return 2;

  try {
    // The reference.
    CandState &Ref = Cands.front();
    progress(Ref.Plan->Id);
    if (!load(Ref)) {
      if (Ref.Crashed)
        crashed(Ref);
      return referenceFailed(Ref,
                             Ref.LoadFailed ? CandidateStatus::LoadFailed
                                            : CandidateStatus::LaunchFailed,
                             Ref.Error);
    }
    try {
      if (!checkReference(Ref)) {
        if (Ref.Crashed)
          crashed(Ref);
        return referenceFailed(Ref, CandidateStatus::LaunchFailed, Ref.Error);
      }
    } catch (const CudaFailure &F) {
      Ref.Error = F.Text;
      crashed(Ref);
    }
    for (const CheckResult &K : Ref.Checks)
      if (K.Unwritten) {
        return referenceFailed(
            Ref, CandidateStatus::Unwritten,
            "the reference left " + std::to_string(K.Unwritten) + " of " +
                std::to_string(K.Count) + " elements of '" + K.Buffer +
                "' unwritten (input set " + std::to_string(K.Set) +
                ", first index " + std::to_string(K.FirstUnwritten) +
                "): the spec's element counts or roles are wrong");
      }
    for (const InputChange &Ch : Ref.Changes)
      return referenceFailed(
          Ref, CandidateStatus::WritesInput,
          "the reference changed " + std::to_string(Ch.Elements) +
              " elements of the 'in' buffer '" + Ch.Buffer + "' (input set " +
              std::to_string(Ch.Set) + ", first index " +
              std::to_string(Ch.First) +
              "): its role should be 'inout'");

    // The candidates' checks.
    for (size_t I = 1; I < Cands.size(); ++I) {
      CandState &C = Cands[I];
      progress(C.Plan->Id);
      std::string Discard;
      if (UseCupti && !cuptiDiscard(Discard)) {
        std::fprintf(stderr,
                     "forge-worker: warning: CUPTI failed (%s); timing with "
                     "events\n",
                     Discard.c_str());
        cuptiStop();
        UseCupti = false;
      }
      try {
        if (load(C))
          checkCandidate(C);
      } catch (const CudaFailure &F) {
        // The worker's own work failed right after the candidate ran: its
        // kernel broke the context.
        C.Error = F.Text;
        C.Crashed = true;
      }
      if (C.Crashed)
        crashed(C);
      if (!C.live()) {
        emit(candidateLine(C));
        C.Written = true;
      }
    }

    // Timing, then the lines.
    try {
      if (!timeAll())
        return 1;
    } catch (const CudaFailure &F) {
      // Which candidate broke the context is not known here; the one in
      // progress is the best guess, and the supervisor reads it too.
      std::fprintf(stderr, "forge-worker: cuda-error: %s\n", F.Text.c_str());
      return 3;
    }
    if (Ref.Samples.empty())
      std::fprintf(stderr, "forge-worker: warning: the reference was not "
                           "timed; results have no baseline\n");
    if (P.Work && Ceil && !Ref.Samples.empty()) {
      double Arith = P.Work->Type == DType::F64 ? Ceil->Fp64Gflops
                                                : Ceil->Fp32Gflops;
      double Floor = std::max(P.Work->Bytes / Ceil->DramGbps,
                              P.Work->Flops / Arith);
      if (statsOf(Ref.Samples).Median < P.Opts.FloorFactor * Floor)
        std::fprintf(stderr,
                     "forge-worker: warning: the reference runs faster than "
                     "%g x the roofline floor (%g ns); the work line of the "
                     "spec is probably too large\n",
                     P.Opts.FloorFactor, Floor);
    }
    for (CandState &C : Cands) {
      if (C.Written || !C.Selected)
        continue;
      emit(candidateLine(C));
      C.Written = true;
    }
  } catch (const StickyExit &E) {
    if (UseCupti)
      cuptiStop();
    return E.Status;
  }
  if (UseCupti)
    cuptiStop();
  return WriteFailed ? 1 : 0;
}

} // namespace

int runExec(const Plan &P, const ExecOptions &Opts) {
  Executor E(P, Opts);
  return E.run();
}

int runInfo() {
  std::string TimerError;
  bool Cupti = cuptiStart(TimerError);
  int Count = 0, Device = 0;
  cudaError_t E = cudaGetDeviceCount(&Count);
  cudaDeviceProp Prop;
  if (E == cudaSuccess && Count == 0)
    E = cudaErrorNoDevice;
  if (E == cudaSuccess)
    E = cudaGetDevice(&Device);
  if (E == cudaSuccess)
    E = cudaFree(nullptr);
  if (E == cudaSuccess)
    E = cudaGetDeviceProperties(&Prop, Device);
  if (E != cudaSuccess) {
    std::fprintf(stderr, "forge-worker: no usable GPU: %s\n",
                 errorText(E).c_str());
    return 1;
  }
  std::string Uuid =
      formatUuid(reinterpret_cast<const unsigned char *>(Prop.uuid.bytes));
  std::printf("%s\n", deviceLineOf(Device, Prop, Uuid,
                                   Cupti ? "cupti" : "events", TimerError)
                          .c_str());
  std::fflush(stdout);
  if (Cupti)
    cuptiStop();
  return 0;
}

} // namespace forge::worker
