//===- Agent/Proposer.cpp -------------------------------------------------===//
#include "forge/Agent/Proposer.h"
#include "llvm/Support/ErrorHandling.h"

namespace forge::agent {

namespace {

// One table per enum: the name functions and the parsers read the same one.
constexpr std::pair<Stage, const char *> StageNames[] = {
    {Stage::Parse, "parse"},       {Stage::Apply, "apply"},
    {Stage::Reparse, "reparse"},   {Stage::Contract, "contract"},
    {Stage::Scope, "scope"},       {Stage::Scan, "scan"},
    {Stage::Compile, "compile"},   {Stage::Repair, "repair"},
    {Stage::Correctness, "correctness"}, {Stage::Timing, "timing"},
};

constexpr std::pair<Verdict, const char *> VerdictNames[] = {
    {Verdict::Accepted, "accepted"},     {Verdict::Rejected, "rejected"},
    {Verdict::Slower, "slower"},         {Verdict::NotFaster, "not-faster"},
    {Verdict::Unmeasured, "unmeasured"}, {Verdict::Superseded, "superseded"},
};

template <class E, size_t N>
llvm::StringRef nameIn(const std::pair<E, const char *> (&Table)[N], E Value) {
  for (const auto &[V, Name] : Table)
    if (V == Value)
      return Name;
  llvm_unreachable("a value missing from its name table");
}

template <class E, size_t N>
std::optional<E> valueIn(const std::pair<E, const char *> (&Table)[N], llvm::StringRef Name) {
  for (const auto &[V, X] : Table)
    if (Name == X)
      return V;
  return std::nullopt;
}

} // namespace

llvm::StringRef stageName(Stage S) { return nameIn(StageNames, S); }
std::optional<Stage> parseStage(llvm::StringRef Name) { return valueIn(StageNames, Name); }
llvm::StringRef verdictName(Verdict V) { return nameIn(VerdictNames, V); }
std::optional<Verdict> parseVerdict(llvm::StringRef Name) { return valueIn(VerdictNames, Name); }

Proposer::~Proposer() = default;

llvm::Expected<std::vector<Proposal>> CombinedProposer::propose(const ProposalRequest &Req) {
  return collect(Req, &Proposer::propose);
}

llvm::Expected<std::vector<Proposal>> CombinedProposer::crossover(const ProposalRequest &Req) {
  return collect(Req, &Proposer::crossover);
}

llvm::Expected<std::vector<Proposal>>
CombinedProposer::collect(const ProposalRequest &Req, Ask Each) {
  std::vector<Proposal> All;
  for (Proposer *P : Parts) {
    auto Some = (P->*Each)(Req);
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
