//===- Measure/WorkerProtocol.h - What forge-port and forge-worker share -*- C++ -*-===//
///
/// \file
/// The parts of the job-directory protocol (docs/worker-protocol.md) that
/// both sides must agree on: how a job is run (the plan's `option` lines)
/// and the statuses a candidate can end with (`status` and `reasons` in
/// results.jsonl). Plain C++17, no LLVM: forge-worker includes it too, so
/// the defaults and the spellings exist once.
///
//===----------------------------------------------------------------------===//
#ifndef FORGE_MEASURE_WORKERPROTOCOL_H
#define FORGE_MEASURE_WORKERPROTOCOL_H

#include <cstdint>
#include <optional>
#include <string>

namespace forge::measure {

/// How the worker's child that loads candidates is confined (`option
/// sandbox`, forge-port's --sandbox; docs/sandbox.md): On applies every layer
/// the platform allows and reports the others, Strict makes a missing layer
/// an error, Off applies none (for debugging, and says so).
enum class SandboxMode : uint8_t { On, Strict, Off };

inline const char *sandboxModeName(SandboxMode M) {
  return M == SandboxMode::Strict ? "strict" : M == SandboxMode::Off ? "off" : "on";
}

/// The mode a spelling names ("on", "strict", "off"); none for another.
inline std::optional<SandboxMode> parseSandboxMode(const std::string &Name) {
  for (SandboxMode M : {SandboxMode::On, SandboxMode::Strict, SandboxMode::Off})
    if (Name == sandboxModeName(M))
      return M;
  return std::nullopt;
}

/// How the worker runs a job (the plan's `option` lines).
struct JobOptions {
  uint64_t Seed = 20261129;      ///< `option seed`: of the input generator
  unsigned InputSets = 2;        ///< `option input_sets`: fresh inputs per check
  unsigned Warmup = 3;           ///< `option warmup`: untimed launches first
  unsigned Rounds = 5;           ///< `option rounds`: interleaved timing rounds
  unsigned Reps = 10;            ///< `option reps`: timed launches per round
  double MinTimeMs = 0;          ///< `option min_time_ms`: raise reps to last this long
  bool FlushL2 = true;           ///< `option flush l2|none`
  bool Cupti = true;             ///< `option timer cupti|events`
  double FloorFactor = 0.5;      ///< `option floor_factor`: no-work below this of the floor
  double CandidateTimeoutS = 30; ///< `option candidate_timeout_s`
  SandboxMode Sandbox = SandboxMode::On; ///< `option sandbox on|strict|off`

  bool operator==(const JobOptions &O) const {
    return Seed == O.Seed && InputSets == O.InputSets && Warmup == O.Warmup &&
           Rounds == O.Rounds && Reps == O.Reps && MinTimeMs == O.MinTimeMs &&
           FlushL2 == O.FlushL2 && Cupti == O.Cupti && FloorFactor == O.FloorFactor &&
           CandidateTimeoutS == O.CandidateTimeoutS && Sandbox == O.Sandbox;
  }
};

/// How a candidate ended. The worker decides the first nine and
/// SandboxDenied; forge-port adds CompileFailed (its harness did not build)
/// and Lost (its cluster job never finished), and the tuner Invalid,
/// MeasurementFailed, Interrupted and Missing (configurations it did not
/// measure). A candidate with several problems
/// lists them all as reasons; its status is the first.
enum class CandidateStatus : uint8_t {
  Ok,           ///< compiled, correct on every input set, timed
  NoWork,       ///< faster than the roofline floor, or left every output unwritten
  WritesInput,  ///< changed a buffer declared "in"
  Unwritten,    ///< left output elements unwritten
  Wrong,        ///< an output differs from the reference's beyond the bounds
  Crashed,      ///< its process died (a fault, a trap, a sticky CUDA error)
  Timeout,      ///< ran past the candidate timeout and was killed
  LoadFailed,   ///< its library or entry could not be loaded
  LaunchFailed, ///< the launch returned an error
  CompileFailed,
  Invalid,           ///< outside the constraints or the target's limits
  MeasurementFailed, ///< the measurement job as a whole failed
  Interrupted,       ///< not measured: the run was interrupted
  Missing,           ///< not measured: no result (a replay cache without it)
  SandboxDenied,     ///< the worker's sandbox denied it a call (exec, fork, a socket, ...)
  /// not measured: its job never finished on the cluster, after every
  /// retry (the error names the Slurm state and reason)
  Lost,
};
/// The last value, for a loop over them all.
inline constexpr CandidateStatus LastCandidateStatus = CandidateStatus::Lost;

/// The spelling in results.jsonl, reports and the tuning database
/// ("ok", "no-work", "writes-input", ...).
inline const char *statusName(CandidateStatus S) {
  switch (S) {
  case CandidateStatus::Ok: return "ok";
  case CandidateStatus::NoWork: return "no-work";
  case CandidateStatus::WritesInput: return "writes-input";
  case CandidateStatus::Unwritten: return "unwritten";
  case CandidateStatus::Wrong: return "wrong";
  case CandidateStatus::Crashed: return "crashed";
  case CandidateStatus::Timeout: return "timeout";
  case CandidateStatus::LoadFailed: return "load-failed";
  case CandidateStatus::LaunchFailed: return "launch-failed";
  case CandidateStatus::CompileFailed: return "compile-failed";
  case CandidateStatus::Invalid: return "invalid";
  case CandidateStatus::MeasurementFailed: return "measurement-failed";
  case CandidateStatus::Interrupted: return "interrupted";
  case CandidateStatus::Missing: return "missing";
  case CandidateStatus::SandboxDenied: return "sandbox-denied";
  case CandidateStatus::Lost: return "lost";
  }
  return "?";
}

/// The status a spelling names; none for an unknown one.
inline std::optional<CandidateStatus> parseCandidateStatus(const std::string &Name) {
  for (uint8_t I = 0; I <= uint8_t(LastCandidateStatus); ++I)
    if (Name == statusName(CandidateStatus(I)))
      return CandidateStatus(I);
  return std::nullopt;
}

} // namespace forge::measure

#endif
