//===- passes/optimize/ExpertProposer.cpp - The rule table as a Proposer ---===//
// Placeholder while the runner is written (issue #6).
#include "ExpertProposer.h"
#include "forge/Support/Error.h"

namespace forge::passes {
ExpertProposer::ExpertProposer(const frontend::Toolchain &TC, frontend::ParseOptions Parse,
                               std::vector<const RuleInfo *> Rules)
    : TC(TC), Parse(std::move(Parse)), Rules(std::move(Rules)) {}

llvm::Expected<std::vector<agent::Proposal>>
ExpertProposer::propose(const agent::ProposalRequest &) {
  return makeError("the expert proposer is not written yet");
}
} // namespace forge::passes
