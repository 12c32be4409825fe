//===- Agent/TunerProposer.h - A sweep as a proposal -----------*- C++ -*-===//
///
/// \file
/// The tuner as a proposal of its own in the optimisation loop: it sweeps
/// the current launch spec's tunables over the current source on the GPU
/// (lib/Tune, the same batches, database and checks as `forge-port tune`),
/// writes the best configuration back into the source (template arguments,
/// launch dimensions, macros, unroll counts) and proposes that edit, with
/// the new values as a spec change, to be validated like any other. It
/// proposes once at the start and again after any other proposal is kept,
/// since a restructured kernel may want other parameters.
///
//===----------------------------------------------------------------------===//
#ifndef FORGE_AGENT_TUNERPROPOSER_H
#define FORGE_AGENT_TUNERPROPOSER_H

#include "forge/Agent/Proposer.h"
#include "forge/Frontend/CudaInvocation.h"
#include "forge/Frontend/Toolchain.h"
#include "forge/Tune/Tuner.h"

namespace forge::agent {

struct TunerOptions {
  std::string File; ///< the user's file (for its name and directory)
  /// The sweeps' settings: GPU, worker, strategy, budget (default 64
  /// configurations), seed, database, job options, nvcc flags, driver,
  /// interrupt flag; JobRoot holds one directory per sweep. Source, spec,
  /// targets and progress are set per sweep.
  tune::TuneOptions Sweep;
  const frontend::Toolchain *Toolchain = nullptr;
  frontend::ParseOptions Parse;
  std::function<void(llvm::StringRef)> OnProgress;
};

class TunerProposer : public agent::Proposer {
public:
  explicit TunerProposer(TunerOptions O) : O(std::move(O)) {}
  llvm::StringRef name() const override { return "tuner"; }
  /// Nothing without a GPU, without tunables, when the sweep finds the
  /// current values best, or when it already swept since the last change.
  llvm::Expected<std::vector<agent::Proposal>>
  propose(const agent::ProposalRequest &Req) override;
  /// Why the last call proposed nothing, in words.
  const std::string &skipReason() const { return Skip; }
  std::vector<std::pair<std::string, std::string>> notProposed() const override {
    if (Skip.empty())
      return {};
    return {{"tuner", Skip}};
  }

private:
  TunerOptions O;
  std::string Skip;
  unsigned Sweeps = 0;
};

} // namespace forge::agent

#endif
