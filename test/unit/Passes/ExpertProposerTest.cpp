//===- ExpertProposerTest.cpp - The rule table and its runner -------------===//
#include "ExpertRule.h"
#include "forge/Agent/ExpertProposer.h"
#include "RuleUtil.h"
#include "forge/Config.h"
#include "forge/Agent/EditBlocks.h"
#include "forge/Measure/LaunchSpec.h"
#include "forge/Support/Json.h"
#include "forge/Support/Error.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"
#include "gtest/gtest.h"

using namespace forge;
using namespace forge::passes;
using agent::ExpertProposer;
using agent::RuleSkip;

namespace {

std::string err(llvm::Error E) { return llvm::toString(std::move(E)); }

std::vector<std::string> names(const std::vector<const RuleInfo *> &Rules) {
  std::vector<std::string> Out;
  for (const RuleInfo *R : Rules)
    Out.push_back(R->Name);
  return Out;
}

TEST(SelectExpertRules, GlobsKeepTableOrder) {
  auto All = selectExpertRules("*");
  ASSERT_TRUE(bool(All)) << err(All.takeError());
  EXPECT_EQ(All->size(), allExpertRules().size());
  EXPECT_EQ(names(*All).front(), "restrict");

  auto Two = selectExpertRules("unroll,restrict");
  ASSERT_TRUE(bool(Two)) << err(Two.takeError());
  EXPECT_EQ(names(*Two), (std::vector<std::string>{"restrict", "unroll"}));

  auto Some = selectExpertRules(
      "*,-register-*,-smem-*,-stencil-*,-warp-*,-cooperative-*,-hierarchical-*,-transpose-*,"
      "-coalesced-*,-histogram-*,-scan-*,-sort-*,-column-*,-segment-*,-shared-*,-plane-*,-block-*");
  ASSERT_TRUE(bool(Some)) << err(Some.takeError());
  // The cheap rules, in table order, once every restructuring rule is excluded.
  EXPECT_EQ(names(*Some), (std::vector<std::string>{"restrict", "unroll", "specialize-scalar",
                                                    "launch-bounds", "vectorize", "grid-stride",
                                                    "accumulator-promotion", "grid-fill"}));
}

TEST(SelectExpertRules, UnknownRuleIsAUsageError) {
  auto R = selectExpertRules("restrict,no-such-rule");
  ASSERT_FALSE(bool(R));
  bool Usage = false;
  llvm::handleAllErrors(R.takeError(), [&](const UsageError &U) {
    Usage = true;
    EXPECT_NE(U.message().find("no-such-rule"), std::string::npos) << U.message();
  });
  EXPECT_TRUE(Usage);
}

/// The grid.x each request of the comment and enabler rules had.
std::vector<std::string> GridSeen;
void noteGrid(const RuleInput &In) {
  auto G = In.Request.Geometry.find("grid.x");
  GridSeen.push_back(G == In.Request.Geometry.end() ? "" : G->second);
}

/// A rule that puts a comment before the kernel's first statement.
class CommentRule : public ExpertRule {
public:
  llvm::StringRef name() const override { return "test-comment"; }
  RuleOutcome propose(const RuleInput &In) override {
    noteGrid(In);
    EditCollector C(In);
    const auto *Body = kernelBody(In.Kernel);
    if (!Body || Body->body_empty())
      return notApplicable("the kernel has no statement");
    const clang::Stmt *First = *Body->body_begin();
    auto Off = C.offsetOf(First->getBeginLoc());
    std::string Indent = Off ? lineIndent(In.Source, *Off).str() : "";
    C.insertBefore(First->getBeginLoc(), "// " + In.Kernel.getNameAsString() + " on " +
                                             In.Target.Name + "\n" + Indent);
    if (C.failed())
      return notApplicable(C.failure());
    return proposeEdits(In, name(), "a comment", "for the test", C.edits());
  }
};
/// A rule that never applies.
class NeverRule : public ExpertRule {
public:
  llvm::StringRef name() const override { return "test-never"; }
  RuleOutcome propose(const RuleInput &) override { return notApplicable("never applies"); }
};
/// A rule whose edit does not match the source (a rule bug).
class BrokenRule : public ExpertRule {
public:
  llvm::StringRef name() const override { return "test-broken"; }
  RuleOutcome propose(const RuleInput &) override {
    RuleOutcome O;
    agent::Proposal P;
    P.Summary = "broken";
    P.Edits = "<<<<<<< SEARCH\nnot in the file\n=======\nx\n>>>>>>> REPLACE\n";
    O.Proposals.push_back(P);
    return O;
  }
};

/// A rule whose proposal exists to enable another (Target): a comment at
/// the top of the body and a grid of half the blocks, FORGE_HALF a new
/// tunable.
template <const char *Target> class EnablerRule : public ExpertRule {
public:
  llvm::StringRef name() const override { return "test-enabler"; }
  RuleOutcome propose(const RuleInput &In) override {
    noteGrid(In);
    EditCollector C(In);
    const auto *Body = kernelBody(In.Kernel);
    C.insertBefore(Body->getLBracLoc().getLocWithOffset(1), "\n  // enabled");
    agent::SpecChange S;
    S.Geometry["grid.x"] = "ceil_div(N, 512)";
    S.NewTunables["FORGE_HALF"] = {2, 4};
    S.Justification = "half the blocks";
    RuleOutcome O = proposeEdits(In, name(), "the enabling form", "for the test", C.edits(), S);
    for (agent::Proposal &P : O.Proposals)
      P.Enables = {Target};
    return O;
  }
};
const char CommentName[] = "test-comment", NeverName[] = "test-never";

const RuleInfo TestRules[] = {
    {"test-comment", "comment", [] { return std::unique_ptr<ExpertRule>(new CommentRule); }},
    {"test-never", "never", [] { return std::unique_ptr<ExpertRule>(new NeverRule); }},
    {"test-broken", "broken", [] { return std::unique_ptr<ExpertRule>(new BrokenRule); }},
    {"test-enabler", "enables test-comment",
     [] { return std::unique_ptr<ExpertRule>(new EnablerRule<CommentName>); }},
    {"test-enabler", "enables test-never",
     [] { return std::unique_ptr<ExpertRule>(new EnablerRule<NeverName>); }},
};

const char *Source = R"(namespace ns {
template <int B>
__global__ void scale(const float *x, float *y, int n) {
  int i = blockIdx.x * B + threadIdx.x;
  if (i < n) y[i] = 2.0f * x[i];
}
}
__global__ void other(float *y) { y[0] = 1; }
void run(const float *x, float *y, int n) { ns::scale<256><<<n / 256, 256>>>(x, y, n); }
)";

struct Runner {
  frontend::Toolchain TC;
  frontend::ParseOptions Opts;
  Runner() {
    TC.ResourceDir = FORGE_CLANG_RESOURCE_DIR;
    Opts.ExtraArgs = {"-nocudainc", "-nocudalib", "-isystem", FORGE_TEST_INPUTS "/mock-cuda",
                      "-include", "cuda_runtime.h"};
  }
  agent::ProposalRequest request(std::string Kernel) {
    agent::ProposalRequest R;
    R.File = "/tmp/forge-proposer-test.cu";
    R.Source = ::Source;
    R.Kernel = std::move(Kernel);
    R.Target = &llvm::cantFail(forge::arch::lookupTarget("sm_90"));
    return R;
  }
};

TEST(ExpertProposer, AsksEveryRuleAndRecordsSkips) {
  Runner Run;
  ExpertProposer P(Run.TC, Run.Opts, {&TestRules[0], &TestRules[1], &TestRules[2]});
  auto Req = Run.request("ns::scale");
  auto Props = P.propose(Req);
  ASSERT_TRUE(bool(Props)) << err(Props.takeError());
  EXPECT_EQ(P.parseErrors(), 0u);
  ASSERT_EQ(Props->size(), 1u);
  EXPECT_EQ((*Props)[0].Origin, "expert:test-comment");
  // The edit applies and lands inside the template pattern, on the target.
  auto Blocks = agent::parseEditBlocks((*Props)[0].Edits);
  ASSERT_TRUE(bool(Blocks)) << err(Blocks.takeError());
  patch::ContentsProvider C = [](llvm::StringRef) -> llvm::Expected<std::string> {
    return std::string(::Source);
  };
  auto Set = agent::applyEditBlocks(*Blocks, Req.File, {}, C, "t");
  ASSERT_TRUE(bool(Set)) << err(Set.takeError());
  auto New = Set->applyTo(Req.File, ::Source);
  ASSERT_TRUE(bool(New)) << err(New.takeError());
  EXPECT_NE(New->find("{\n  // scale on sm_90\n  int i ="), std::string::npos) << *New;

  ASSERT_EQ(P.skipped().size(), 2u);
  EXPECT_EQ(P.skipped()[0].Rule, "test-never");
  EXPECT_EQ(P.skipped()[0].Reason, "never applies");
  EXPECT_EQ(P.skipped()[1].Rule, "test-broken");
  EXPECT_NE(P.skipped()[1].Reason.find("does not apply"), std::string::npos)
      << P.skipped()[1].Reason;
}

TEST(ExpertProposer, RulesTriedBeforeAreNotAskedAgain) {
  Runner Run;
  ExpertProposer P(Run.TC, Run.Opts, {&TestRules[0], &TestRules[1]});
  auto Req = Run.request("scale"); // a unique unqualified name is enough
  agent::Attempt A;
  A.Round = 2;
  A.Origin = "expert:test-comment";
  A.Verdict = agent::Verdict::Slower;
  Req.History.push_back(A);
  auto Props = P.propose(Req);
  ASSERT_TRUE(bool(Props)) << err(Props.takeError());
  EXPECT_TRUE(Props->empty());
  ASSERT_EQ(P.skipped().size(), 2u);
  EXPECT_EQ(P.skipped()[0].Rule, "test-comment");
  EXPECT_EQ(P.skipped()[0].Reason, "tried in round 2: slower");
}

TEST(ExpertProposer, ASupersededRuleIsAskedAgain) {
  Runner Run;
  ExpertProposer P(Run.TC, Run.Opts, {&TestRules[0]});
  auto Req = Run.request("scale");
  agent::Attempt A;
  A.Round = 1;
  A.Origin = "expert:test-comment";
  A.Verdict = agent::Verdict::Superseded;
  Req.History.push_back(A);
  auto Props = P.propose(Req);
  ASSERT_TRUE(bool(Props)) << err(Props.takeError());
  ASSERT_EQ(Props->size(), 1u);
  EXPECT_EQ((*Props)[0].Origin, "expert:test-comment");
}

TEST(ExpertProposer, ARuleIsAskedAgainOnceTheKernelChanged) {
  Runner Run;
  ExpertProposer P(Run.TC, Run.Opts, {&TestRules[0]});
  auto Req = Run.request("scale");
  agent::Attempt Slow;
  Slow.Round = 1;
  Slow.Origin = "expert:test-comment";
  Slow.Verdict = agent::Verdict::Slower;
  Req.History.push_back(Slow);
  // Another rule's proposal kept in round 1 (or later): the kernel the
  // slower rule saw is gone, so it is asked about the new one.
  agent::Attempt Kept;
  Kept.Round = 1;
  Kept.Origin = "expert:other";
  Kept.Verdict = agent::Verdict::Accepted;
  Req.History.push_back(Kept);
  auto Props = P.propose(Req);
  ASSERT_TRUE(bool(Props)) << err(Props.takeError());
  ASSERT_EQ(Props->size(), 1u);
  EXPECT_EQ((*Props)[0].Origin, "expert:test-comment");

  // A kept proposal older than the rule's try changes nothing it saw.
  Req.History[0].Round = 2;
  Props = P.propose(Req);
  ASSERT_TRUE(bool(Props)) << err(Props.takeError());
  EXPECT_TRUE(Props->empty());
  ASSERT_EQ(P.skipped().size(), 1u);
  EXPECT_EQ(P.skipped()[0].Reason, "tried in round 2: slower");

  // Nor is a rule asked again whose own proposal was kept.
  Req.History = {Kept};
  Req.History[0].Origin = "expert:test-comment";
  agent::Attempt Later = Kept;
  Later.Round = 2;
  Later.Origin = "expert:other";
  Req.History.push_back(Later);
  Props = P.propose(Req);
  ASSERT_TRUE(bool(Props)) << err(Props.takeError());
  EXPECT_TRUE(Props->empty());
  ASSERT_EQ(P.skipped().size(), 1u);
  EXPECT_EQ(P.skipped()[0].Reason, "tried in round 1: accepted");
}

TEST(ExpertProposer, AnEnablingProposalIsOfferedComposedWithTheRulesItEnables) {
  Runner Run;
  auto J = parseJson(R"J({"kernel": "ns::scale", "sizes": {"N": 4096},
    "buffers": [{"name": "x", "dtype": "f32", "count": "N", "role": "in", "init": {"kind": "constant", "value": 1}},
                {"name": "y", "dtype": "f32", "count": "N", "role": "out"}],
    "scalars": [{"name": "n", "dtype": "i32", "value": "N"}], "args": ["x", "y", "n"],
    "grid": ["ceil_div(N, 256)"], "block": [256]})J",
                     "spec.json");
  ASSERT_TRUE(bool(J)) << err(J.takeError());
  auto Spec = measure::parseLaunchSpec(*J, "spec.json");
  ASSERT_TRUE(bool(Spec)) << err(Spec.takeError());
  auto Req = Run.request("ns::scale");
  agent::setLaunch(Req, *Spec, {});
  GridSeen.clear();
  ExpertProposer P(Run.TC, Run.Opts, {&TestRules[0], &TestRules[3]});
  auto Props = P.propose(Req);
  ASSERT_TRUE(bool(Props)) << err(Props.takeError());
  // The comment rule alone, and once composed with the enabler; the
  // enabler is never offered alone.
  for (const RuleSkip &K : P.skipped())
    ADD_FAILURE() << K.Rule << ": " << K.Reason;
  ASSERT_EQ(Props->size(), 2u);
  EXPECT_EQ((*Props)[0].Origin, "expert:test-comment");
  const agent::Proposal &C = (*Props)[1];
  EXPECT_EQ(C.Origin, "expert:test-enabler+test-comment");
  EXPECT_EQ(C.Summary, "a comment, on the enabling form");
  // One edit of the original source holds both changes.
  auto New = agent::applyEditText(C.Edits, Req.File, Req.Source, C.Origin);
  ASSERT_TRUE(bool(New)) << err(New.takeError());
  EXPECT_NE(New->find("{\n  // enabled\n  // scale on sm_90\n  int i ="), std::string::npos)
      << *New;
  // The launch change travels with it; the rule it enabled saw the new
  // grid (the comment rule asked alone, the enabler, then the comment rule
  // on the enabled form).
  ASSERT_TRUE(C.Spec.has_value());
  EXPECT_EQ(C.Spec->Geometry.at("grid.x"), "ceil_div(N, 512)");
  EXPECT_EQ(C.Spec->NewTunables.count("FORGE_HALF"), 1u);
  EXPECT_EQ(GridSeen, (std::vector<std::string>{"ceil_div(N, 256)", "ceil_div(N, 256)",
                                               "ceil_div(N, 512)"}));

  // Tried once (slower), the composition is not asked again on the same
  // kernel: it counts as the enabler's.
  agent::Attempt Slow;
  Slow.Round = 1;
  Slow.Origin = C.Origin;
  Slow.Verdict = agent::Verdict::Slower;
  auto Again = Req;
  Again.History.push_back(Slow);
  Props = P.propose(Again);
  ASSERT_TRUE(bool(Props)) << err(Props.takeError());
  ASSERT_EQ(Props->size(), 1u);
  EXPECT_EQ((*Props)[0].Origin, "expert:test-comment");
  EXPECT_EQ(P.skipped().back().Reason, "tried in round 1: slower");

  // An enabled rule that declines: nothing is offered, and the skip says
  // why.
  ExpertProposer Q(Run.TC, Run.Opts, {&TestRules[1], &TestRules[4]});
  Props = Q.propose(Req);
  ASSERT_TRUE(bool(Props)) << err(Props.takeError());
  EXPECT_TRUE(Props->empty());
  ASSERT_EQ(Q.skipped().size(), 2u);
  EXPECT_EQ(Q.skipped()[1].Rule, "test-enabler");
  EXPECT_EQ(Q.skipped()[1].Reason,
            "test-never declined its result (test-never: never applies)");

  // A selection without the enabled rule: the enabler says so.
  ExpertProposer R(Run.TC, Run.Opts, {&TestRules[3]});
  Props = R.propose(Req);
  ASSERT_TRUE(bool(Props)) << err(Props.takeError());
  EXPECT_TRUE(Props->empty());
  ASSERT_EQ(R.skipped().size(), 1u);
  EXPECT_EQ(R.skipped()[0].Reason,
            "it exists to enable test-comment, which the rule selection leaves out");
}

TEST(ExpertProposer, UnknownKernelIsAnError) {
  Runner Run;
  ExpertProposer P(Run.TC, Run.Opts, {&TestRules[0]});
  auto Props = P.propose(Run.request("nope"));
  ASSERT_FALSE(bool(Props));
  std::string E = err(Props.takeError());
  EXPECT_NE(E.find("kernel 'nope' is not defined"), std::string::npos) << E;
  EXPECT_NE(E.find("ns::scale, other"), std::string::npos) << E;
}


} // namespace
