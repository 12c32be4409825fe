//===- Agent/ModelProposer.h - A language model as a Proposer --*- C++ -*-===//
///
/// \file
/// Asks a model (ModelClient) for one transformation per round with the
/// prompt of Prompt.h, and for one repair when the edit does not compile;
/// in the evolutionary search, also for crossovers of two elites.
/// The reply is the proposal's edits exactly as received: the validation
/// pipeline judges it, garbage included.
///
//===----------------------------------------------------------------------===//
#ifndef FORGE_AGENT_MODELPROPOSER_H
#define FORGE_AGENT_MODELPROPOSER_H

#include "forge/Agent/ModelClient.h"
#include "forge/Agent/Proposer.h"

namespace forge::agent {

class ModelProposer : public Proposer {
public:
  explicit ModelProposer(ModelConfig C) : Client(std::move(C)) {}
  llvm::StringRef name() const override { return "model"; }
  llvm::Expected<std::vector<Proposal>> propose(const ProposalRequest &Req) override;
  /// A failed crossover (origin "model:crossover") is repaired with the
  /// crossover prompt ("model:crossover (repair)"), any other proposal with
  /// the round's prompt ("model (repair)").
  llvm::Expected<std::optional<Proposal>> repair(const ProposalRequest &Req,
                                                 const Proposal &Failed) override;
  /// One proposal, origin "model:crossover", from buildCrossoverPrompt: an
  /// edit of Req.Source that combines it with the elite Req.Other (whose
  /// source the model only sees). None without Req.Other.
  llvm::Expected<std::vector<Proposal>> crossover(const ProposalRequest &Req) override;
  const ModelClient &client() const { return Client; }
  /// The client, for the meta-prompt's recombinations (MetaPrompt.h), which
  /// share its token budget.
  ModelClient &client() { return Client; }

private:
  llvm::Expected<Proposal> ask(const std::string &Prompt, llvm::StringRef Origin);
  ModelClient Client;
};

/// The prose of a reply outside its edit blocks, trimmed to one line, for a
/// proposal's summary ("Stage the tile in shared memory."); empty if none.
std::string replySummary(llvm::StringRef Reply);

} // namespace forge::agent

#endif
