//===- Agent/ProposeSession.h - `forge-port propose` without the CLI -*- C++ -*-===//
///
/// \file
/// What the built-in expert rules would change in one kernel, without a GPU
/// and without compiling: each selected rule's proposal, or its reason for
/// not proposing. With Apply the rules run one after the other, each on the
/// source the earlier ones left (and with the launch spec they changed), and
/// the result is the new source. The input file is never written. Rendering
/// is in Report/ProposeReport.h.
///
//===----------------------------------------------------------------------===//
#ifndef FORGE_AGENT_PROPOSESESSION_H
#define FORGE_AGENT_PROPOSESESSION_H

#include "forge/Agent/ExpertProposer.h"
#include "forge/Measure/LaunchSpec.h"
#include "forge/Support/Output.h"
#include <array>
#include <optional>

namespace forge::agent {

struct ProposeOptions {
  std::string File;
  /// The kernel (qualified name, or a unique name); empty: the spec's.
  std::string Kernel;
  const arch::TargetInfo *Target = nullptr; ///< required: the code is read for it
  std::vector<const RuleInfo *> Rules;      ///< the selection, in table order
  /// Block size, grid expressions and tunables come from the spec, else from
  /// Block, else from the kernel's first launch with a constant block.
  std::optional<measure::LaunchSpec> Spec;
  std::string SpecPath; ///< for messages
  std::optional<std::array<int64_t, 3>> Block;
  /// ProposalRequest::AssumeNoAlias.
  bool AssumeNoAlias = false;
  bool Apply = false;
  /// With Apply: File writes the new source there (never over the input);
  /// Stdout and Diff leave it to the caller.
  OutputChoice Output;
  std::string BuildDir;
  std::vector<std::string> ExtraArgs;
  const frontend::Toolchain *Toolchain = nullptr; ///< required
  /// Where Clang's errors in the source are printed; null: nowhere.
  llvm::raw_ostream *ParseDiagOS = nullptr;
};

/// What one rule did in an Apply run.
struct ApplyStep {
  std::string Rule;
  std::vector<RuleSkip> Skipped;   ///< why it (or its variants) did not apply
  std::optional<Proposal> Applied; ///< its proposal, applied
};

struct ProposeResult {
  std::string Kernel;
  /// Without Apply: every proposal, and the rules that did not propose.
  std::vector<Proposal> Proposals;
  std::vector<RuleSkip> Skipped;
  /// With Apply: one step per rule, and the sources before and after.
  std::vector<ApplyStep> Steps;
  std::string Original, Source;
  /// Nothing was proposed (or applied): the command's exit status is 1.
  bool empty() const;
};

class ProposeSession {
public:
  explicit ProposeSession(ProposeOptions O) : O(std::move(O)) {}
  /// Fails on a usage error (no kernel, a spec for another kernel, -o naming
  /// the input), an unreadable file, a source Clang cannot parse into an
  /// AST, or a rule whose edit does not apply.
  llvm::Expected<ProposeResult> run();

private:
  ProposeOptions O;
};

} // namespace forge::agent

#endif
