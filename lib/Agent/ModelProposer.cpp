//===- Agent/ModelProposer.cpp - A language model as a Proposer -----------===//
#include "forge/Agent/ModelProposer.h"
#include "forge/Agent/Prompt.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

using namespace llvm;

namespace forge::agent {

static constexpr const char *CrossoverOrigin = "model:crossover";

std::string replySummary(StringRef Reply) {
  SmallVector<StringRef, 0> Lines;
  Reply.split(Lines, '\n');
  bool InBlock = false;
  for (StringRef L : Lines) {
    StringRef T = L.trim();
    if (T.starts_with("<<<<<<<")) {
      InBlock = true;
      continue;
    }
    if (T.starts_with(">>>>>>>")) {
      InBlock = false;
      continue;
    }
    if (InBlock || T.empty() || T.starts_with("```"))
      continue;
    std::string S = T.str();
    if (S.size() > 160)
      S = S.substr(0, 157) + "...";
    return S;
  }
  return "";
}

Expected<Proposal> ModelProposer::ask(const std::string &Prompt, StringRef Origin) {
  auto R = Client.complete(systemPrompt(), {{"user", Prompt}});
  if (!R)
    return R.takeError();
  Proposal P;
  P.Origin = Origin.str();
  P.Edits = R->Text;
  P.Prompt = Prompt;
  P.PromptTokens = R->PromptTokens;
  P.ReplyTokens = R->CompletionTokens;
  std::string S = replySummary(R->Text);
  P.Summary = S.empty() ? formatv("an edit from {0}", Client.config().Model).str() : S;
  P.Rationale = formatv("{0} replied in {1:F1} s after {2} attempt(s){3}", Client.config().Model,
                        R->Seconds, R->Attempts,
                        R->RetryLog.empty() ? "" : " (" + join(R->RetryLog, "; ") + ")")
                    .str();
  return P;
}

Expected<std::vector<Proposal>> ModelProposer::propose(const ProposalRequest &Req) {
  auto P = ask(buildPrompt(Req), "model");
  if (!P)
    return P.takeError();
  return std::vector<Proposal>{std::move(*P)};
}

Expected<std::vector<Proposal>> ModelProposer::crossover(const ProposalRequest &Req) {
  if (!Req.Other)
    return std::vector<Proposal>();
  auto P = ask(buildCrossoverPrompt(Req), CrossoverOrigin);
  if (!P)
    return P.takeError();
  return std::vector<Proposal>{std::move(*P)};
}

Expected<std::optional<Proposal>> ModelProposer::repair(const ProposalRequest &Req,
                                                        const Proposal &Failed) {
  bool Crossover = Failed.Origin == CrossoverOrigin && Req.Other;
  auto P = Crossover ? ask(buildCrossoverPrompt(Req, &Failed), std::string(CrossoverOrigin) + " (repair)")
                     : ask(buildPrompt(Req, &Failed), "model (repair)");
  if (!P)
    return P.takeError();
  return std::optional<Proposal>(std::move(*P));
}

} // namespace forge::agent
