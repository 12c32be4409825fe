//===- RuleHarness.cpp - run one expert rule on a source string -----------===//
#include "RuleHarness.h"
#include "ExpertRule.h"
#include "forge/Agent/EditBlocks.h"
#include "forge/Agent/ExpertProposer.h"
#include "forge/Config.h"
#include "gtest/gtest.h"

namespace forge::testing {

std::string err(llvm::Error E) { return llvm::toString(std::move(E)); }

RuleRun runRule(llvm::StringRef Rule, const std::string &Code, const std::string &Kernel,
                const RuleRunOptions &Options) {
  frontend::Toolchain TC;
  TC.ResourceDir = FORGE_CLANG_RESOURCE_DIR;
  frontend::ParseOptions Opts;
  Opts.ExtraArgs = {"-nocudainc", "-nocudalib", "-isystem", FORGE_TEST_INPUTS "/mock-cuda",
                    "-include", "cuda_runtime.h"};
  auto Rules = passes::selectExpertRules(Rule);
  EXPECT_TRUE(bool(Rules)) << err(Rules.takeError());
  RuleRun R;
  if (!Rules)
    return R;
  agent::ExpertProposer P(TC, Opts, *Rules);
  agent::ProposalRequest Req;
  Req.File = ("/tmp/forge-" + Rule + "-test.cu").str();
  Req.Source = Code;
  Req.Kernel = Kernel;
  Req.Target = &llvm::cantFail(forge::arch::lookupTarget("sm_90"));
  Req.Block = Options.Block;
  if (Options.Block)
    Req.BlockThreads = (*Options.Block)[0] * (*Options.Block)[1] * (*Options.Block)[2];
  if (Options.SmCount)
    Req.SmCount = *Options.SmCount;
  Req.Geometry = Options.Geometry;
  Req.Spec = Options.Spec;
  auto Props = P.propose(Req);
  EXPECT_TRUE(bool(Props)) << err(Props.takeError());
  if (!Props)
    return R;
  if (Options.ExpectCleanParse)
    EXPECT_EQ(P.parseErrors(), 0u) << Kernel;
  R.Proposals = *Props;
  for (const agent::RuleSkip &S : P.skipped())
    R.Skip += S.Reason;
  for (const agent::Proposal &Pr : R.Proposals) {
    EXPECT_EQ(Pr.Origin, ("expert:" + Rule).str());
    auto Blocks = agent::parseEditBlocks(Pr.Edits);
    EXPECT_TRUE(bool(Blocks)) << err(Blocks.takeError());
    std::string Applied;
    if (Blocks) {
      patch::ContentsProvider Contents = [&](llvm::StringRef) -> llvm::Expected<std::string> {
        return Code;
      };
      auto Set = agent::applyEditBlocks(*Blocks, Req.File, {}, Contents, Pr.Origin);
      EXPECT_TRUE(bool(Set)) << err(Set.takeError());
      if (Set) {
        auto New = Set->applyTo(Req.File, Code);
        EXPECT_TRUE(bool(New)) << err(New.takeError());
        if (New)
          Applied = *New;
      }
    }
    R.Applied.push_back(Applied);
  }
  return R;
}

} // namespace forge::testing
