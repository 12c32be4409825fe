//===- forge-worker/Plan.h - The job plan the worker runs -------*- C++ -*-===//
///
/// \file
/// The parsed form of a job directory's `job.plan` (docs/worker-protocol.md).
/// Plain C++17: the worker links no LLVM and no JSON library, and the plan
/// holds numbers only, because forge-port evaluates the spec before writing
/// it.
///
//===----------------------------------------------------------------------===//
#ifndef FORGE_WORKER_PLAN_H
#define FORGE_WORKER_PLAN_H

#include "forge/Measure/WorkerProtocol.h"
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace forge::worker {

enum class DType {
#define FORGE_DTYPE(E, Name, Size, Float) E,
#include "forge/Measure/DTypes.def"
};
const char *dtypeName(DType T);
bool parseDType(const std::string &Name, DType &Out);
size_t dtypeSize(DType T);
bool isFloatingPoint(DType T);

enum class Role { In, Out, InOut };
enum class InitKind { None, Uniform, Normal, Iota, Constant, File };

struct BufferPlan {
  std::string Name;
  DType Type = DType::F32;
  uint64_t Count = 0;
  Role R = Role::In;
  InitKind Init = InitKind::None;
  double A = 0, B = 0;   ///< uniform min/max, normal mean/stddev, constant A
  std::string Path;      ///< file init, resolved against the job directory
  std::optional<double> RelL2, MaxAbs; ///< "-" leaves a bound unset
};

struct ArgPlan {
  bool IsBuffer = false;
  std::string Buffer;    ///< IsBuffer
  DType Type = DType::I32;
  int64_t IntValue = 0;  ///< integer dtypes
  double FloatValue = 0; ///< floating-point dtypes
};

struct CandidatePlan {
  std::string Id;
  bool Reference = false;
  std::string Library;   ///< resolved against the job directory
  std::string Symbol;
  std::string Label;
  unsigned Grid[3] = {1, 1, 1};
  unsigned Block[3] = {1, 1, 1};
  uint64_t SharedBytes = 0;
  std::vector<ArgPlan> Args;
};

/// The plan's options: the protocol's one definition (WorkerProtocol.h).
using Options = measure::JobOptions;

struct WorkPlan {
  double Bytes = 0, Flops = 0;
  DType Type = DType::F32;
};

struct Plan {
  std::string JobDir;
  Options Opts;
  std::optional<WorkPlan> Work;
  std::vector<BufferPlan> Buffers;
  /// The reference first, then the candidates in plan order.
  std::vector<CandidatePlan> Candidates;

  const BufferPlan *findBuffer(const std::string &Name) const;
  const CandidatePlan *findCandidate(const std::string &Id) const;
};

/// Reads JobDir/job.plan. On failure returns false and sets Error to
/// "job.plan:LINE: message".
bool readPlan(const std::string &JobDir, Plan &Out, std::string &Error);
/// Parses plan text (for tests); relative paths resolve against JobDir.
bool parsePlan(const std::string &Text, const std::string &JobDir, Plan &Out,
               std::string &Error);

} // namespace forge::worker

#endif
