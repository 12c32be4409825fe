//===- Agent/Proposer.cpp -------------------------------------------------===//
#include "forge/Agent/Proposer.h"

namespace forge::agent {

Proposer::~Proposer() = default;

llvm::Expected<std::vector<Proposal>> CombinedProposer::propose(const ProposalRequest &Req) {
  std::vector<Proposal> All;
  for (Proposer *P : Parts) {
    auto Some = P->propose(Req);
    if (!Some)
      return Some.takeError();
    for (Proposal &X : *Some) {
      OwnerOf[X.Origin] = P;
      All.push_back(std::move(X));
    }
  }
  return All;
}

llvm::Expected<std::optional<Proposal>> CombinedProposer::repair(const ProposalRequest &Req,
                                                                 const Proposal &Failed) {
  auto It = OwnerOf.find(Failed.Origin);
  if (It == OwnerOf.end())
    return std::optional<Proposal>();
  return It->second->repair(Req, Failed);
}

std::vector<std::pair<std::string, std::string>> CombinedProposer::notProposed() const {
  std::vector<std::pair<std::string, std::string>> All;
  for (const Proposer *P : Parts)
    for (auto &N : P->notProposed())
      All.push_back(std::move(N));
  return All;
}

} // namespace forge::agent
