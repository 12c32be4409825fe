//===- Agent/ExpertProposer.h - Expert rules as a Proposer -----*- C++ -*-===//
///
/// \file
/// The default proposer of `forge-port optimize`: parses the current source
/// (device side, for the loop's target), finds the kernel and asks every
/// selected rule. A rule already accepted in an earlier round, or already
/// rejected on this source, is not asked again, so the loop ends when the
/// rules have nothing new to offer. Works offline and without a GPU.
///
//===----------------------------------------------------------------------===//
#ifndef FORGE_AGENT_EXPERTPROPOSER_H
#define FORGE_AGENT_EXPERTPROPOSER_H

#include "forge/Agent/ExpertRule.h"
#include "forge/Frontend/CudaInvocation.h"
#include "forge/Frontend/Toolchain.h"
#include "llvm/Support/raw_ostream.h"

namespace forge::agent {

/// A rule that did not propose, and why; for reports and `forge-port propose`.
struct RuleSkip {
  std::string Rule;
  std::string Reason;
};

class ExpertProposer : public Proposer {
public:
  /// Rules: the selection (selectExpertRules); Parse: the user's flags
  /// (its Arch is replaced by each request's Target).
  ExpertProposer(const frontend::Toolchain &TC, frontend::ParseOptions Parse,
                 std::vector<const RuleInfo *> Rules);
  llvm::StringRef name() const override { return "expert"; }
  /// Fails when the source does not parse into an AST or the kernel is not
  /// in it; a rule that does not apply is a skip, not an error.
  llvm::Expected<std::vector<Proposal>> propose(const ProposalRequest &Req) override;
  /// The rules that did not propose in the last call, with reasons.
  const std::vector<RuleSkip> &skipped() const { return Skipped; }
  std::vector<std::pair<std::string, std::string>> notProposed() const override {
    std::vector<std::pair<std::string, std::string>> Out;
    for (const RuleSkip &S : Skipped)
      Out.push_back({"expert:" + S.Rule, S.Reason});
    return Out;
  }
  /// Where parse errors of the source are printed (default: nowhere; they
  /// are counted either way).
  void setParseDiagnostics(llvm::raw_ostream *OS) { DiagOS = OS; }
  /// Parse errors (after nvcc-compatible downgrades) of the last call.
  unsigned parseErrors() const { return LastParseErrors; }
  /// The rules a proposal may enable (Proposal::Enables), when they are more
  /// than the rules asked (`propose --apply` asks one rule at a time from
  /// the selection); by default the rules asked.
  void setComposable(std::vector<const RuleInfo *> R) { Composable = std::move(R); }

private:
  /// P's result offered to the rules it enables: each of their proposals on
  /// it, composed with P (one edit of Req.Source, the spec changes in
  /// order); an error says why there are none.
  llvm::Expected<std::vector<Proposal>> compose(const ProposalRequest &Req,
                                                const Proposal &P);

  const frontend::Toolchain &TC;
  frontend::ParseOptions Parse;
  std::vector<const RuleInfo *> Rules, Composable;
  std::vector<RuleSkip> Skipped;
  llvm::raw_ostream *DiagOS = nullptr;
  unsigned LastParseErrors = 0;
};

} // namespace forge::agent

#endif
