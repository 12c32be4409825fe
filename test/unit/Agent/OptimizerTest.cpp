// The optimisation loop's stages and decisions (Optimizer.h): real Clang
// parses (mock CUDA headers, for speed) and real nvcc compiles; the GPU's
// verdicts come from a measurement function that plays a worker's results,
// so every decision rule is exercised without a GPU.
#include "forge/Agent/Optimizer.h"
#include "forge/Agent/Transcript.h"
#include "forge/Build/CudaToolkit.h"
#include "forge/Config.h"
#include "forge/Support/FileUtil.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "gtest/gtest.h"

using namespace forge;
using namespace forge::agent;

namespace {

const char *Kernel = R"CU(#include <cuda_runtime.h>
extern "C" int system(const char *);
__global__ void triad(float *a, float *b, float *c, float s, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] = b[i] + s * c[i];
}
int main() {
  float *a = 0, *b = 0, *c = 0;
  triad<<<(1024 + 255) / 256, 256>>>(a, b, c, 2.0f, 1024);
  return 0;
}
)CU";

const char *SpecText = R"JSON({"kernel": "triad", "sizes": {"n": 1024},
  "buffers": [{"name": "a", "dtype": "f32", "count": "n", "role": "out"},
              {"name": "b", "dtype": "f32", "count": "n", "init": {"kind": "uniform"}, "role": "in"},
              {"name": "c", "dtype": "f32", "count": "n", "init": {"kind": "uniform"}, "role": "in"}],
  "scalars": [{"name": "s", "dtype": "f32", "value": 2.0},
              {"name": "n_arg", "dtype": "i32", "value": "n"}],
  "args": ["a", "b", "c", "s", "n_arg"],
  "grid": "ceil_div(n, 256)", "block": 256})JSON";

std::string block(const std::string &Search, const std::string &Replace) {
  return "<<<<<<< SEARCH\n" + Search + "\n=======\n" + Replace + "\n>>>>>>> REPLACE\n";
}

/// Proposals by round; a repair answer per origin.
class Scripted : public Proposer {
public:
  std::map<unsigned, std::vector<Proposal>> Rounds;
  std::map<std::string, Proposal> Repairs;
  std::vector<ProposalRequest> Seen;
  llvm::StringRef name() const override { return "scripted"; }
  llvm::Expected<std::vector<Proposal>> propose(const ProposalRequest &Req) override {
    Seen.push_back(Req);
    return Rounds[Req.Round];
  }
  llvm::Expected<std::optional<Proposal>> repair(const ProposalRequest &Req,
                                                 const Proposal &Failed) override {
    Seen.push_back(Req);
    auto It = Repairs.find(Failed.Origin);
    if (It == Repairs.end())
      return std::optional<Proposal>();
    return std::optional<Proposal>(It->second);
  }
};

Proposal prop(const std::string &Origin, const std::string &Edits) {
  Proposal P;
  P.Origin = Origin;
  P.Summary = Origin;
  P.Edits = Edits;
  return P;
}

class OptimizerTest : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("forge-opt-test", Dir));
    File = (Dir + "/triad.cu").str();
    ASSERT_FALSE(bool(writeFileAtomically(File, Kernel)));
    auto J = parseJson(SpecText, "spec.json");
    ASSERT_TRUE(bool(J));
    auto S = measure::parseLaunchSpec(*J, (Dir + "/spec.json").str());
    ASSERT_TRUE(bool(S)) << llvm::toString(S.takeError());
    Spec = *S;
    auto TK = build::CudaToolkit::find(FORGE_DEFAULT_CUDA_PATH);
    ASSERT_TRUE(bool(TK)) << llvm::toString(TK.takeError());
    Driver = std::make_unique<build::NvccDriver>(*TK);
    TC.ResourceDir = FORGE_CLANG_RESOURCE_DIR;
    frontend::ParseOptions PO;
    PO.ExtraArgs = {"-nocudainc", "-nocudalib", "-isystem", FORGE_TEST_INPUTS "/mock-cuda"};
    Checker = std::make_unique<SourceChecker>(TC, PO);
    O.File = File;
    O.Spec = &Spec;
    O.Target = &llvm::cantFail(forge::arch::lookupTarget("sm_90"));
    O.JobRoot = (Dir + "/job").str();
    O.Checker = Checker.get();
    O.Driver = Driver.get();
    O.Propose = &P;
  }
  void TearDown() override { llvm::sys::fs::remove_directories(Dir); }

  /// Records grid.x of every candidate the played GPU measures (after
  /// playGpu).
  void recordGrids(std::vector<int64_t> &Grids) {
    auto Inner = O.Measure;
    O.Measure = [&Grids, Inner](const measure::MeasureRequest &Q) {
      for (const auto &C : Q.Candidates)
        if (C.Spec)
          if (auto G = C.Spec->geometry(C.Values))
            Grids.push_back(G->Grid[0]);
      return Inner(Q);
    };
  }
  /// A GPU that times candidates by their origin (TimesUs) and rejects
  /// those in Wrong with a worker status.
  void playGpu(std::map<std::string, double> TimesUs,
               std::map<std::string, measure::CandidateStatus> Wrong = {}) {
    O.GpuTarget = &llvm::cantFail(forge::arch::lookupTarget("sm_90"));
    O.Measure = [=](const measure::MeasureRequest &Q) -> llvm::Expected<measure::MeasureReport> {
      measure::MeasureReport R;
      R.Device = measure::DeviceInfo{"Played GPU (test)", "9.0", 132};
      R.Ceiling = measure::Ceilings{4000, 60000, 30000, "test"};
      R.Work.Bytes = 3 * 4 * 1024;
      std::vector<const measure::MeasureCandidate *> All{&Q.Reference};
      for (const auto &C : Q.Candidates)
        All.push_back(&C);
      for (const measure::MeasureCandidate *C : All) {
        measure::CandidateOutcome Out;
        Out.Candidate = *C;
        Out.Result.Id = C->Id;
        std::string Key = C->Id == "ref" ? "original" : C->Label;
        auto W = Wrong.find(Key);
        if (W != Wrong.end()) {
          Out.Result.Status = W->second;
          Out.Result.Error = std::string("played: ") + statusName(W->second);
        } else {
          Out.Result.Status = measure::CandidateStatus::Ok;
          measure::TimeStats T;
          T.Median = 1000 * (TimesUs.count(Key) ? TimesUs.at(Key) : 100.0);
          Out.Result.Time = T;
          Out.Result.Noise = 0.01;
        }
        R.Outcomes.push_back(Out);
      }
      return R;
    };
  }

  llvm::SmallString<128> Dir;
  std::string File;
  measure::LaunchSpec Spec;
  std::unique_ptr<build::NvccDriver> Driver;
  frontend::Toolchain TC;
  std::unique_ptr<SourceChecker> Checker;
  Scripted P;
  OptimizeOptions O;
};

const std::string Body = "  if (i < n) a[i] = b[i] + s * c[i];";
const std::string Alt = "  if (i < n) { float t = s * c[i]; a[i] = b[i] + t; }";
/// Clang accepts it; ptxas does not.
const std::string Bogus =
    "  if (i < n) { asm volatile(\"not.an.instruction;\"); a[i] = b[i] + s * c[i]; }";
const std::string Launch = "  triad<<<(1024 + 255) / 256, 256>>>(a, b, c, 2.0f, 1024);";
const std::string Sig = "__global__ void triad(float *a, float *b, float *c, float s, int n) {";

std::map<std::string, const ProposalRecord *> byOrigin(const RoundRecord &R) {
  std::map<std::string, const ProposalRecord *> M;
  for (const ProposalRecord &P : R.Proposals)
    M[P.P.Origin] = &P;
  return M;
}

TEST_F(OptimizerTest, EachStageRejectsWithItsReasonAndTheBestIsKept) {
  P.Rounds[1] = {
      prop("good", block(Sig, "__global__ void triad(float *__restrict__ a, const float *__restrict__ b, "
                              "const float *__restrict__ c, float s, int n) {")),
      prop("unrolled", block(Body, Alt)),
      prop("garbage", "Sure! I would make it faster by using shared memory."),
      prop("missing", block("  if (j < n) a[j] = 0;", "  nothing")),
      prop("signature", block(Sig, "__global__ void triad(float *a, float *b, float *c, double s, int n) {")),
      prop("host-call", block(Launch, Launch + " system(\"ls\");")),
      prop("outside", block("  return 0;", "  return 1;")),
      prop("no-compile", block(Body, Bogus)),
  };
  playGpu({{"original", 100}, {"good", 80}, {"unrolled", 90}});
  auto R = runOptimization(O);
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  ASSERT_GE(R->Rounds.size(), 1u);
  auto M = byOrigin(R->Rounds[0]);
  EXPECT_EQ(M["good"]->Verdict, Verdict::Accepted);
  EXPECT_EQ(M["unrolled"]->Verdict, Verdict::Superseded);
  EXPECT_EQ(M["garbage"]->failedStage()->Stage, Stage::Parse);
  EXPECT_EQ(M["missing"]->failedStage()->Stage, Stage::Apply);
  EXPECT_EQ(M["signature"]->failedStage()->Stage, Stage::Contract);
  EXPECT_NE(M["signature"]->Reason.find("signature changed"), std::string::npos) << M["signature"]->Reason;
  EXPECT_EQ(M["host-call"]->failedStage()->Stage, Stage::Scan);
  EXPECT_NE(M["host-call"]->Reason.find("system"), std::string::npos) << M["host-call"]->Reason;
  EXPECT_EQ(M["outside"]->failedStage()->Stage, Stage::Scope);
  EXPECT_EQ(M["no-compile"]->failedStage()->Stage, Stage::Compile);
  EXPECT_NE(M["no-compile"]->Reason.find("triad.cu:5:3: error: Unknown modifier '.an'"),
            std::string::npos)
      << M["no-compile"]->Reason;
  EXPECT_NE(R->FinalSource.find("const float *__restrict__ b"), std::string::npos);
  EXPECT_NEAR(R->speedup(), 1.25, 1e-9);
  // The next round's request carries the history and the new source.
  ASSERT_GE(P.Seen.size(), 2u);
  EXPECT_NE(P.Seen.back().Source.find("__restrict__"), std::string::npos);
  EXPECT_EQ(P.Seen.back().History.size(), 8u);
  // Round 2 proposes nothing: the loop stops and says why.
  EXPECT_NE(R->StopReason.find("nothing new"), std::string::npos) << R->StopReason;
  // The user's file is untouched.
  EXPECT_EQ(*readFile(File), Kernel);
}

TEST_F(OptimizerTest, WrongAndSlowerProposalsAreRolledBack) {
  P.Rounds[1] = {prop("cheat", block(Body, "  if (i < n / 2) a[i] = b[i] + s * c[i];")),
                 prop("slow", block(Body, Alt))};
  playGpu({{"original", 100}, {"slow", 130}}, {{"cheat", measure::CandidateStatus::Unwritten}});
  auto R = runOptimization(O);
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  auto M = byOrigin(R->Rounds[0]);
  EXPECT_EQ(M["cheat"]->failedStage()->Stage, Stage::Correctness);
  EXPECT_NE(M["cheat"]->Reason.find("unwritten"), std::string::npos) << M["cheat"]->Reason;
  EXPECT_EQ(M["slow"]->Verdict, Verdict::Slower);
  EXPECT_EQ(R->Rounds[0].Accepted, -1);
  EXPECT_EQ(R->FinalSource, Kernel);
}

TEST_F(OptimizerTest, ARoundBelowTheThresholdEndsTheLoop) {
  P.Rounds[1] = {prop("small", block(Body, Alt))};
  P.Rounds[2] = {prop("never-asked", block(Body, Body))};
  playGpu({{"original", 100}, {"small", 97}});
  auto R = runOptimization(O);
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  EXPECT_EQ(R->Rounds.size(), 1u);
  EXPECT_EQ(R->Rounds[0].Accepted, 0);
  EXPECT_NE(R->StopReason.find("below the 5 % threshold"), std::string::npos) << R->StopReason;
}

TEST_F(OptimizerTest, ABrokenBuildGetsOneRepair) {
  P.Rounds[1] = {prop("model", block(Body, Bogus))};
  P.Repairs["model"] = prop("model (repair)", block(Body, Alt));
  playGpu({{"original", 100}, {"model", 50}});
  auto R = runOptimization(O);
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  const ProposalRecord &Rec = R->Rounds[0].Proposals[0];
  EXPECT_TRUE(Rec.Repaired);
  ASSERT_TRUE(Rec.Repair.has_value());
  std::vector<std::string> Stages;
  for (const StageVerdict &S : Rec.Stages)
    Stages.push_back(stageName(S.Stage).str() + (S.Passed ? "+" : "-"));
  EXPECT_EQ(Stages, (std::vector<std::string>{"parse+", "apply+", "reparse+", "contract+", "scope+",
                                              "scan+", "compile-", "repair+", "parse+", "apply+",
                                              "reparse+", "contract+", "scope+", "scan+",
                                              "compile+", "correctness+", "timing+"}));
  // The repair request carried the compiler's errors.
  ASSERT_GE(P.Seen.size(), 2u);
  EXPECT_NE(P.Seen[1].CompileErrors.find("triad.cu:5:3: error: Unknown modifier '.an'"),
            std::string::npos)
      << P.Seen[1].CompileErrors;
}

TEST_F(OptimizerTest, WithoutAGpuNothingIsKept) {
  P.Rounds[1] = {prop("good", block(Body, Alt))};
  auto R = runOptimization(O);
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  EXPECT_EQ(R->Rounds[0].Proposals[0].Verdict, Verdict::Unmeasured);
  EXPECT_EQ(R->FinalSource, Kernel);
  EXPECT_NE(R->StopReason.find("no GPU"), std::string::npos);
}

TEST_F(OptimizerTest, AGridChangeNeedsItsJustificationAndOnlyTheGrid) {
  Proposal Capped = prop("capped", block(Body, Alt));
  Capped.Spec = SpecChange{{{"grid.x", "min(ceil_div(n, 256), 2)"}}, {}, {}, "grid-stride"};
  Proposal Block = prop("block", block(Body, Alt));
  Block.Spec = SpecChange{{{"block.x", "128"}}, {}, {}, "no"};
  P.Rounds[1] = {Capped, Block};
  std::vector<int64_t> Grids;
  playGpu({{"original", 100}, {"capped", 60}});
  recordGrids(Grids);
  auto R = runOptimization(O);
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  auto M = byOrigin(R->Rounds[0]);
  EXPECT_EQ(M["capped"]->Verdict, Verdict::Accepted);
  EXPECT_EQ(M["block"]->failedStage()->Stage, Stage::Contract);
  EXPECT_NE(M["block"]->Reason.find("only the grid"), std::string::npos) << M["block"]->Reason;
  EXPECT_EQ(Grids, std::vector<int64_t>{2});
  EXPECT_EQ(R->FinalSpec.Grid[0].text(), "min(ceil_div(n, 256), 2)");
}

// The tuner's best values of a tunable only the spec holds (a capped
// grid's waves): a proposal with no edit, the spec's values alone. It is
// compiled, checked and timed with those values; a value the tunable does
// not declare, or a name that is not a tunable, fails the contract.
TEST_F(OptimizerTest, NewTunableValuesAloneNeedNoEdit) {
  Proposal Capped = prop("capped", block(Body, Alt));
  Capped.Spec = SpecChange();
  Capped.Spec->Geometry["grid.x"] = "min(ceil_div(n, 256), WAVES)";
  Capped.Spec->NewTunables["WAVES"] = {4, 1, 2};
  Capped.Spec->Justification = "grid-stride";
  auto valuesOnly = [](std::string Origin, std::string Name, int64_t V) {
    Proposal Q = prop(Origin, "");
    Q.Spec = SpecChange();
    Q.Spec->Values[Name] = V;
    return Q;
  };
  P.Rounds[1] = {Capped};
  P.Rounds[2] = {valuesOnly("tuner", "WAVES", 1), valuesOnly("undeclared", "WAVES", 3),
                 valuesOnly("unknown", "NOPE", 1)};
  std::vector<int64_t> Grids;
  playGpu({{"original", 100}, {"capped", 60}, {"tuner", 40}});
  recordGrids(Grids);
  auto R = runOptimization(O);
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  ASSERT_GE(R->Rounds.size(), 2u);
  auto M = byOrigin(R->Rounds[1]);
  EXPECT_EQ(M["tuner"]->Verdict, Verdict::Accepted) << M["tuner"]->Reason;
  EXPECT_EQ(M["undeclared"]->failedStage()->Stage, Stage::Contract);
  EXPECT_NE(M["undeclared"]->Reason.find("WAVES = 3 is not one of the values"), std::string::npos)
      << M["undeclared"]->Reason;
  EXPECT_EQ(M["unknown"]->failedStage()->Stage, Stage::Contract);
  // Round 1 timed the capped grid at its default (4 blocks); round 2 timed
  // the current version again (4) beside the tuner's value (1).
  EXPECT_EQ(Grids, (std::vector<int64_t>{4, 4, 1}));
  // The source is round 1's; the final launch takes the tuned value.
  EXPECT_NE(R->FinalSource.find(Alt), std::string::npos);
  EXPECT_EQ(R->FinalSpec.findTunable("WAVES")->defaultValue(), 1);
}

TEST_F(OptimizerTest, ALaunchConstraintMustHoldAndStaysInTheFinalSpec) {
  Proposal Pinned = prop("pinned", block(Body, Alt));
  Pinned.Spec = SpecChange{{}, {}, {}, "the rewrite needs n to be a multiple of 256",
                           {"n % 256 == 0"}};
  Proposal Broken = prop("broken", block(Body, Alt));
  Broken.Spec = SpecChange{{}, {}, {}, "no", {"n > 4096"}};
  Proposal Garbled = prop("garbled", block(Body, Alt));
  Garbled.Spec = SpecChange{{}, {}, {}, "no", {"n >"}};
  P.Rounds[1] = {Pinned, Broken, Garbled};
  playGpu({{"original", 100}, {"pinned", 60}});
  auto R = runOptimization(O);
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  auto M = byOrigin(R->Rounds[0]);
  EXPECT_EQ(M["pinned"]->Verdict, Verdict::Accepted);
  EXPECT_EQ(M["broken"]->failedStage()->Stage, Stage::Contract);
  EXPECT_NE(M["broken"]->Reason.find("break a constraint"), std::string::npos)
      << M["broken"]->Reason;
  EXPECT_EQ(M["garbled"]->failedStage()->Stage, Stage::Contract);
  EXPECT_NE(M["garbled"]->Reason.find("constraint 'n >'"), std::string::npos)
      << M["garbled"]->Reason;
  ASSERT_EQ(R->FinalSpec.Constraints.size(), 1u);
  EXPECT_EQ(R->FinalSpec.Constraints[0].text(), "n % 256 == 0");
}

TEST_F(OptimizerTest, TheAnalysisNamesTheLinesThatMoveMemory) {
  const char *Conv = R"CU(#include <cuda_runtime.h>
__global__ void conv(const float *in, const float *w, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < 2 || i >= n - 2) return;
  float acc = 0.0f;
  for (int k = -2; k <= 2; ++k)
    acc += w[k + 2] * in[i + k];
  out[i] = acc;
}
)CU";
  auto C = Checker->analyse(File, Conv, "conv", llvm::cantFail(arch::lookupTarget("sm_90")));
  ASSERT_TRUE(bool(C)) << llvm::toString(C.takeError());
  ASSERT_EQ(C->Hot.size(), 2u);
  EXPECT_EQ(C->Hot[0].Line, 7u);
  EXPECT_EQ(C->Hot[0].Loads, 2u);
  EXPECT_EQ(C->Hot[0].Weight, 5u);
  EXPECT_EQ(C->Hot[1].Line, 8u);
  EXPECT_EQ(C->Hot[1].Stores, 1u);
  EXPECT_EQ(describeHotLines(C->Hot, 1),
            "global memory accesses by line: line 7 (2 load(s), 0 store(s) x 5 iterations = 10 "
            "per thread): acc += w[k + 2] * in[i + k];");
}

TEST(SourceScan, LowerPrecision) {
  auto Low = scanForLowerPrecision("", "  __half h = __float2half(x);\n  y = __expf(x);\n");
  ASSERT_EQ(Low.size(), 3u);
  EXPECT_TRUE(scanForLowerPrecision("", "  float y = expf(x);\n").empty());
  // Already there before: not added by the edit.
  EXPECT_TRUE(scanForLowerPrecision("  y = __expf(x);\n", "  y = __expf(x);\n").empty());
}

} // namespace

namespace {

// nvcc's errors go to the model in a repair request: those located in
// another file (a header's text) are redacted, the source's are kept.
TEST(CompileErrorsForModel, ErrorsInOtherFilesAreRedacted) {
  build::CompileResult C;
  build::CompilerDiagnostic Own, Other;
  Own.File = "/job/p0/k.cu";
  Own.Line = 5;
  Own.Message = "Unknown modifier '.an'";
  Other.File = "/etc/hostname";
  Other.Line = 1;
  Other.Message = "this declaration has no storage class: TOPSECRET";
  C.Diagnostics = {Other, Own, Other};
  std::string E = compileErrorsForModel(C, "/job/p0/k.cu");
  EXPECT_EQ(E.find("TOPSECRET"), std::string::npos) << E;
  EXPECT_EQ(E.find("/etc/hostname"), std::string::npos) << E;
  EXPECT_NE(E.find("[redacted: diagnostic located in another file]"), std::string::npos) << E;
  EXPECT_NE(E.find("k.cu:5"), std::string::npos) << E;
  // Without parsed diagnostics: the log's lines of other files, and the
  // source lines quoted under them, are redacted.
  build::CompileResult L;
  L.Log = "/etc/hostname(1): error: this declaration has no storage class\n"
          "  TOPSECRET\n"
          "  ^\n"
          "/job/p0/k.cu(7): error: identifier \"q\" is undefined\n"
          "1 error detected\n";
  std::string T = compileErrorsForModel(L, "/job/p0/k.cu");
  EXPECT_EQ(T.find("TOPSECRET"), std::string::npos) << T;
  EXPECT_NE(T.find("[redacted: diagnostic located in another file]"), std::string::npos) << T;
  EXPECT_NE(T.find("/job/p0/k.cu(7): error: identifier \"q\" is undefined"), std::string::npos)
      << T;
}

} // namespace
