//===- Measure/LaunchSpec.h - The JSON launch spec -------------*- C++ -*-===//
///
/// \file
/// A launch spec names a kernel, its arguments, the problem sizes, the launch
/// geometry as expressions over sizes and tunables, the tuning space and how
/// outputs are compared (docs/spec-format.md). The worker builds and runs a
/// kernel from it alone, so parsing is strict: every bad field is reported
/// with its JSON path, all of them at once, because a spec is written by hand
/// and a fix-one-rerun loop is slow.
///
//===----------------------------------------------------------------------===//
#ifndef FORGE_MEASURE_LAUNCHSPEC_H
#define FORGE_MEASURE_LAUNCHSPEC_H

#include "forge/Measure/IntExpr.h"
#include "forge/Support/Json.h"
#include <array>
#include <optional>
#include <utility>
#include <variant>

namespace forge::measure {

enum class DType {
#define FORGE_DTYPE(E, Name, Size, Float) E,
#include "forge/Measure/DTypes.def"
};

/// The spelling in specs: "f16", "bf16", "f32", ...
llvm::StringRef dtypeName(DType T);
std::optional<DType> parseDType(llvm::StringRef Name);
size_t dtypeSize(DType T);
bool isFloatingPoint(DType T);

/// How outputs are compared with the reference. Both bounds apply: the
/// relative L2 error over the whole buffer, and the largest element-wise
/// absolute error, so that one wrong element among millions is still caught.
struct Tolerance {
  std::optional<double> RelL2;
  std::optional<double> MaxAbs;
};

/// rel_l2 1e-5 for f32, 1e-12 for f64, 1e-2 for f16/bf16; integers compare
/// exactly (0). MaxAbs is left unset: the worker derives a per-element bound.
Tolerance defaultTolerance(DType T);

enum class InitKind { Uniform, Normal, Iota, Constant, File };
llvm::StringRef initKindName(InitKind K);

/// How an input buffer is filled. Only the fields of Kind are meaningful.
struct InitSpec {
  InitKind Kind = InitKind::Uniform;
  double Min = -1.0, Max = 1.0;   ///< uniform
  double Mean = 0.0, Stddev = 1.0; ///< normal
  double Value = 0.0;             ///< constant
  std::string Path;               ///< file; relative to the spec's directory
};

enum class BufferRole { In, Out, InOut };
llvm::StringRef roleName(BufferRole R);

struct Buffer {
  std::string Name;
  DType Type = DType::F32;
  /// The number of elements.
  IntExpr Count;
  /// Absent only for Out buffers, which are poisoned with NaN before a run.
  std::optional<InitSpec> Init;
  BufferRole Role = BufferRole::In;
  /// Overrides the spec's tolerance for this output.
  std::optional<Tolerance> ToleranceOverride;
};

struct Scalar {
  std::string Name;
  DType Type = DType::I32;
  /// A literal (integer or floating point) or an expression over sizes and
  /// tunables; kept apart so that toJson writes back what was read.
  std::variant<int64_t, double, IntExpr> Value;
};

struct Tunable {
  std::string Name;
  std::vector<int64_t> Values;
  std::optional<int64_t> Default;
  /// Default, or the first candidate.
  int64_t defaultValue() const {
    return Default ? *Default : (Values.empty() ? 0 : Values.front());
  }
};

/// A launch geometry with every expression evaluated.
struct Geometry {
  std::array<int64_t, 3> Grid{{1, 1, 1}};
  std::array<int64_t, 3> Block{{1, 1, 1}};
  int64_t SharedMemBytes = 0;
};

struct LaunchSpec {
  /// The qualified kernel name ("ns::saxpy").
  std::string Kernel;
  std::vector<std::string> TemplateArgs;
  /// Problem sizes in the order of the spec.
  std::vector<std::pair<std::string, int64_t>> Sizes;
  std::vector<Buffer> Buffers;
  std::vector<Scalar> Scalars;
  /// Kernel argument order: names of buffers and scalars.
  std::vector<std::string> Args;
  /// One to three dimensions (x, y, z); missing ones are 1.
  std::vector<IntExpr> Grid;
  std::vector<IntExpr> Block;
  IntExpr SharedMem = IntExpr::constant(0);
  std::vector<Tunable> Tunables;
  /// Each must evaluate to non-zero for a configuration to be valid.
  std::vector<IntExpr> Constraints;
  /// Overrides the per-dtype default for every output.
  std::optional<Tolerance> Tol;
  /// Bytes that must move and flops that must be done (the roofline floor).
  std::optional<IntExpr> Bytes;
  std::optional<IntExpr> Flops;
  bool AllowLowerPrecision = false;
  /// The draft's notes on what it guessed (`forge-port spec`): read, not
  /// used, and not written back (they are no part of the spec's identity).
  std::vector<std::string> Notes;
  /// Where the spec was read from (not serialized); relative init file paths
  /// resolve against its directory.
  std::string Origin;

  const Buffer *findBuffer(llvm::StringRef Name) const;
  const Scalar *findScalar(llvm::StringRef Name) const;
  const Tunable *findTunable(llvm::StringRef Name) const;

  /// Sizes, then tunable defaults, then Overrides, which may name sizes or
  /// tunables (anything else is an error).
  llvm::Expected<ValueMap> environment(const ValueMap &Overrides = {}) const;

  /// Grid, block and dynamic shared memory for the given tunable (and,
  /// optionally, size) values. Fails on evaluation errors and on geometry
  /// CUDA cannot launch (a zero or negative dimension, more than 1024 threads
  /// per block, grid y/z above 65535).
  llvm::Expected<Geometry> geometry(const ValueMap &Values) const;

  /// Whether every constraint holds for Values.
  llvm::Expected<bool> satisfiesConstraints(const ValueMap &Values) const;

  /// Count * dtypeSize, with overflow and negative counts as errors.
  llvm::Expected<uint64_t> bufferBytes(const Buffer &B,
                                       const ValueMap &Values = {}) const;

  /// The buffer's override, else the spec's, else the dtype default; a bound
  /// left unset in an override falls back to the next level.
  Tolerance toleranceFor(const Buffer &B) const;

  /// The value to pass for S: an integer for integer dtypes (range-checked
  /// against the dtype), a double for floating-point ones.
  llvm::Expected<std::variant<int64_t, double>>
  scalarValue(const Scalar &S, const ValueMap &Values = {}) const;
};

/// Checks J and builds a spec. Errors are UsageErrors, one line per problem:
/// "spec.json: $.buffers[1].role: expected one of "in", "out", "inout", got
/// "input"".
llvm::Expected<LaunchSpec> parseLaunchSpec(const Json &J,
                                           llvm::StringRef Origin);
llvm::Expected<LaunchSpec> readLaunchSpec(llvm::StringRef Path);

/// The spec as JSON; parseLaunchSpec(toJson(S)) gives S back.
Json toJson(const LaunchSpec &S);

} // namespace forge::measure

#endif
