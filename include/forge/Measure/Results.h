//===- Measure/Results.h - The worker's result lines ------------*- C++ -*-===//
///
/// \file
/// Reads a job's results.jsonl (docs/worker-protocol.md) into structs, and
/// says what a measurement means: the bottleneck class from the roofline.
/// Lines the parser does not know are skipped (a newer worker may add kinds);
/// malformed lines are errors that give the line number.
///
//===----------------------------------------------------------------------===//
#ifndef FORGE_MEASURE_RESULTS_H
#define FORGE_MEASURE_RESULTS_H

#include "forge/Measure/WorkerProtocol.h"
#include "forge/Support/Json.h"
#include "llvm/Support/Error.h"
#include <optional>
#include <string>
#include <vector>

namespace forge::measure {

struct DeviceInfo {
  std::string Name;
  std::string ComputeCapability; ///< "9.0"
  unsigned SMs = 0;
  uint64_t L2Bytes = 0;
  unsigned ClockKHz = 0;
  std::string Uuid;
  std::string Timer; ///< "cupti" or "events"
};

struct Ceilings {
  double DramGBps = 0;
  double Fp32GFlops = 0;
  double Fp64GFlops = 0;
  std::string Source; ///< "measured" or "cache"
};

struct TimeStats {
  double Median = 0, Min = 0, Max = 0, P10 = 0, P90 = 0;
  double Spread = 0; ///< (p90 - p10) / median
  unsigned Samples = 0;
};

struct BufferCheck {
  unsigned Set = 0;
  std::string Buffer;
  double RelL2 = 0, MaxAbs = 0;
  uint64_t OverBound = 0, Unwritten = 0;
  int64_t FirstBad = -1;       ///< first element over the bound
  int64_t FirstUnwritten = -1; ///< first element left unwritten
};

/// An `in` buffer the candidate changed.
struct InputChange {
  unsigned Set = 0;
  std::string Buffer;
  uint64_t Elements = 0;
  int64_t First = -1;
};

/// The worker's "sandbox" line (docs/sandbox.md): which layers confined
/// the candidates, and why the others are missing.
struct SandboxInfo {
  std::string Mode; ///< on, strict, off
  std::vector<std::string> Active;
  std::vector<std::pair<std::string, std::string>> Refused; ///< layer, reason
};

struct CandidateResult {
  std::string Id, Label, Error;
  CandidateStatus Status = CandidateStatus::Missing;
  bool Reference = false;
  std::vector<CandidateStatus> Reasons; ///< every problem; Status is the first
  std::vector<BufferCheck> Checks;
  std::vector<InputChange> InputsChanged;
  std::optional<TimeStats> Time;
  std::vector<double> RoundMediansNs;
  std::optional<double> BaselineMedianNs, Noise, Speedup, FloorNs, GBps,
      GFlops, RooflineFraction;
  unsigned Process = 0;
  /// Buffers the worker restored before every timed launch (inout ones,
  /// inputs the candidate changed) and how: "pristine-copy" (a device copy,
  /// no kernel) or "regenerated" (no memory for a copy; timed with events).
  std::vector<std::string> RestoredPerLaunch;
  std::string Restore;
  /// The calls the sandbox denied it ("execve", "socket(AF_INET)"), with
  /// how often; its status is then sandbox-denied.
  std::vector<std::pair<std::string, unsigned>> SandboxDenied;

  bool ok() const { return Status == CandidateStatus::Ok; }
};

struct JobResults {
  std::optional<DeviceInfo> Device;
  std::optional<Ceilings> Ceiling;
  std::optional<SandboxInfo> Sandbox;
  std::vector<CandidateResult> Candidates;
  /// Set when the reference failed: its status and error text.
  std::optional<std::string> ReferenceFailure;

  const CandidateResult *find(llvm::StringRef Id) const;
};

/// Parses results.jsonl text; Origin names it in errors ("results.jsonl:3:
/// ..."), an unknown status among them ("results.jsonl:3: unknown status
/// 'foo'").
llvm::Expected<JobResults> parseResults(llvm::StringRef Text,
                                        llvm::StringRef Origin);

/// A candidate's line as the worker or supervisor would write it (for
/// tests and for replaying recorded measurements).
Json toJson(const CandidateResult &R);

/// Why a candidate was rejected, in one line from its error or checks
/// ("'out', input set 0: 256 element(s) left unwritten (first at 67108608)");
/// FloorFactor is the job's floor_factor, for no-work.
std::string describeRejection(const CandidateResult &R, double FloorFactor);

enum class Bottleneck { Memory, Compute, Latency, Unknown };
llvm::StringRef bottleneckName(Bottleneck B); ///< "memory-bound", ...

/// Where a run sits on the roofline. The side of the ridge point comes from
/// the arithmetic intensity (flops per byte) against the ceilings' ratio; a
/// run at under LatencyThreshold of the ceiling on its side is limited by
/// neither (latency, occupancy or instruction overhead).
struct RooflinePosition {
  Bottleneck Class = Bottleneck::Unknown;
  double Intensity = 0;    ///< flop/byte; 0 without flops
  double Ridge = 0;        ///< flop/byte where the two ceilings meet
  double MemFraction = 0;  ///< achieved bytes/s over the DRAM ceiling
  double ComputeFraction = 0;
  double Fraction = 0;     ///< the fraction on the kernel's side
};
RooflinePosition classify(double Bytes, double Flops, double TimeNs,
                          const Ceilings &C, bool Fp64,
                          double LatencyThreshold = 0.4);

} // namespace forge::measure

#endif
