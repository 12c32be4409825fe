//===- Measure/Harness.h - Harness sources and job plans -------*- C++ -*-===//
///
/// \file
/// A measurement is a job directory the worker runs (docs/worker-protocol.md).
/// This file makes its two inputs from a launch spec:
///
/// - the harness source for one user file and its configurations: it renames
///   the user's `main` away, includes the file, checks at compile time that
///   the kernel's parameters match the spec's arguments, and exports one
///   `forge_entry_N` per configuration for the worker to launch;
/// - the plan (`job.plan`), in which every expression of the spec has been
///   evaluated, so the worker sees numbers only.
///
/// The reference (the original source) and every candidate are built from
/// the same harness generator, so they differ only in the user's code.
///
//===----------------------------------------------------------------------===//
#ifndef FORGE_MEASURE_HARNESS_H
#define FORGE_MEASURE_HARNESS_H

#include "forge/Measure/LaunchSpec.h"
#include "forge/Measure/WorkerProtocol.h"
#include "llvm/ADT/ArrayRef.h"

namespace forge::measure {

/// One configuration of a kernel in a harness.
struct HarnessConfig {
  std::string Symbol; ///< the exported entry, "forge_entry_0"
  ValueMap Values;    ///< tunable (and size) overrides for this configuration
};

/// The harness source for SourcePath (made absolute by the caller) with one
/// entry per configuration. Fails when a template argument does not
/// evaluate, or when Configs is empty.
llvm::Expected<std::string> generateHarness(const LaunchSpec &Spec,
                                            llvm::StringRef SourcePath,
                                            llvm::ArrayRef<HarnessConfig> Configs);

/// The template argument list for Values: each spec template argument with
/// whole-word tunable and size names replaced by their values
/// ("T, BLOCK" -> "T, 256"). Empty when the spec has none.
llvm::Expected<std::vector<std::string>>
templateArguments(const LaunchSpec &Spec, const ValueMap &Values);

/// The kernel expression the harness takes the address of:
/// "ns::saxpy<float, 256>".
llvm::Expected<std::string> kernelExpression(const LaunchSpec &Spec,
                                             const ValueMap &Values);

/// Replaces whole-word identifiers of Text that Values names.
std::string substituteIdentifiers(llvm::StringRef Text, const ValueMap &Values);

/// One entry of the plan: a library, its entry symbol and a configuration.
struct JobEntry {
  std::string Id;
  std::string Library; ///< relative to the job directory, or absolute
  std::string Symbol;
  std::string Label;
  ValueMap Values;
  /// The entry's own spec for its geometry and scalars (a transformation
  /// that changed the launch, see Agent/Proposer.h's SpecChange); null: the
  /// plan's spec. Buffers always come from the plan's spec.
  const LaunchSpec *Spec = nullptr;
};

/// The bytes and flops of the roofline: the spec's, else (bytes only) every
/// buffer read or written once, inout buffers both. The dtype decides the
/// arithmetic ceiling: f64 when any buffer is f64, else f32.
struct WorkEstimate {
  double Bytes = 0, Flops = 0;
  DType Type = DType::F32;
  bool Derived = false; ///< the bytes come from the buffer sizes
};
llvm::Expected<WorkEstimate> estimateWork(const LaunchSpec &Spec,
                                          const ValueMap &Values);

/// The text of job.plan: the options, the work line, the buffers (counts
/// evaluated for the reference's values; a candidate whose counts differ is
/// an error, because outputs of different sizes cannot be compared), the
/// reference and the candidates with their geometry and arguments.
/// Relative file inits are made absolute against the spec's directory.
llvm::Expected<std::string> renderPlan(const LaunchSpec &Spec,
                                       const JobEntry &Reference,
                                       llvm::ArrayRef<JobEntry> Candidates,
                                       const JobOptions &Opts);

/// Every combination of the tunables' values (in spec order, the first
/// tunable varying slowest) that satisfies the constraints and gives a
/// launchable geometry; at most Limit of them (0: no limit).
llvm::Expected<std::vector<ValueMap>> enumerateConfigs(const LaunchSpec &Spec,
                                                       size_t Limit = 0);

/// "BLOCK=256 ITEMS=4", in spec order; "default" when Values is empty.
std::string configLabel(const LaunchSpec &Spec, const ValueMap &Values);

} // namespace forge::measure

#endif
