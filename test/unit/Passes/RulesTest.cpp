//===- RulesTest.cpp - The five basic expert rules on in-memory code ------===//
// The lit tests (test/passes/<rule>) check the rewrites against real CUDA
// headers and nvcc; these check what the command line cannot show: the spec
// changes as IntExpr reads them, and the rules on the mock headers' AST
// (plain members instead of Clang's property form of threadIdx.x).
#include "ExpertRule.h"
#include "forge/Agent/ExpertProposer.h"
#include "forge/Agent/EditBlocks.h"
#include "forge/Config.h"
#include "forge/Measure/IntExpr.h"
#include "gtest/gtest.h"

using namespace forge;
using namespace forge::passes;
using agent::ExpertProposer;
using agent::RuleSkip;

namespace {

std::string err(llvm::Error E) { return llvm::toString(std::move(E)); }

const char *Saxpy = R"(
__global__ void saxpy(int n, float a, const float *x, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = a * x[i] + y[i];
}
)";

/// The proposals of Rules for Kernel in Source (mock CUDA headers).
std::vector<agent::Proposal> propose(const char *Source, const std::string &Kernel,
                                     const std::string &Rules,
                                     std::map<std::string, std::string> Geometry = {},
                                     std::optional<int64_t> Block = std::nullopt,
                                     std::vector<RuleSkip> *Skips = nullptr) {
  frontend::Toolchain TC;
  TC.ResourceDir = FORGE_CLANG_RESOURCE_DIR;
  frontend::ParseOptions Opts;
  Opts.ExtraArgs = {"-nocudainc", "-nocudalib", "-isystem", FORGE_TEST_INPUTS "/mock-cuda",
                    "-include", "cuda_runtime.h"};
  auto Selected = selectExpertRules(Rules);
  EXPECT_TRUE(bool(Selected));
  if (!Selected)
    return {};
  ExpertProposer P(TC, Opts, *Selected);
  agent::ProposalRequest Req;
  Req.File = "/tmp/forge-rules-test.cu";
  Req.Source = Source;
  Req.Kernel = Kernel;
  Req.Target = &llvm::cantFail(forge::arch::lookupTarget("sm_90"));
  Req.SmCount = 132;
  // The sources have no launch, or launches from host functions without
  // callers: restrict applies on the user's promise (--assume-no-alias).
  Req.AssumeNoAlias = true;
  Req.Geometry = std::move(Geometry);
  if (Block) {
    Req.BlockThreads = *Block;
    Req.Block = std::array<int64_t, 3>{{*Block, 1, 1}};
  }
  auto Props = P.propose(Req);
  EXPECT_TRUE(bool(Props)) << (Props ? "" : err(Props.takeError()));
  EXPECT_EQ(P.parseErrors(), 0u);
  if (Skips)
    *Skips = P.skipped();
  return Props ? *Props : std::vector<agent::Proposal>();
}

std::string applied(const char *Source, const agent::Proposal &P) {
  auto B = agent::parseEditBlocks(P.Edits);
  if (!B)
    return "error: " + err(B.takeError());
  patch::ContentsProvider C = [&](llvm::StringRef) -> llvm::Expected<std::string> {
    return std::string(Source);
  };
  auto Set = agent::applyEditBlocks(*B, "k.cu", {}, C, P.Origin);
  if (!Set)
    return "error: " + err(Set.takeError());
  auto Out = Set->applyTo("k.cu", Source);
  return Out ? *Out : "error: " + err(Out.takeError());
}

int64_t eval(const std::string &Text, measure::ValueMap Env) {
  auto E = measure::IntExpr::parse(Text);
  EXPECT_TRUE(bool(E)) << Text << ": " << (E ? "" : err(E.takeError()));
  if (!E)
    return -1;
  auto V = E->evaluate(Env);
  EXPECT_TRUE(bool(V)) << Text << ": " << (V ? "" : err(V.takeError()));
  return V ? *V : -1;
}

TEST(GridStrideRule, SpecChangeIsAnIntExprThatCapsTheGrid) {
  auto Props = propose(Saxpy, "saxpy", "grid-stride", {{"grid.x", "ceil_div(N, 256)"}}, 256);
  ASSERT_EQ(Props.size(), 1u);
  ASSERT_TRUE(Props[0].Spec.has_value());
  const agent::SpecChange &S = *Props[0].Spec;
  ASSERT_EQ(S.Geometry.count("grid.x"), 1u);
  EXPECT_EQ(S.Geometry.at("grid.x"), "min(ceil_div(N, 256), 132 * FORGE_GRID_WAVES * 8)");
  ASSERT_EQ(S.NewTunables.count("FORGE_GRID_WAVES"), 1u);
  EXPECT_EQ(S.NewTunables.at("FORGE_GRID_WAVES"), (std::vector<int64_t>{4, 1, 2, 8, 16, 32}));
  // Small problems keep their grid; large ones are capped at the waves.
  EXPECT_EQ(eval(S.Geometry.at("grid.x"), {{"N", 1 << 20}, {"FORGE_GRID_WAVES", 4}}), 4096);
  EXPECT_EQ(eval(S.Geometry.at("grid.x"), {{"N", 1 << 24}, {"FORGE_GRID_WAVES", 4}}), 4224);
  EXPECT_EQ(eval(S.Geometry.at("grid.x"), {{"N", 1 << 24}, {"FORGE_GRID_WAVES", 1}}), 1056);
  EXPECT_NE(applied(Saxpy, Props[0]).find("for (long long i = (long long)blockIdx.x * "
                                          "blockDim.x + threadIdx.x; i < n; i += (long "
                                          "long)blockDim.x * gridDim.x)\n    y[i] ="),
            std::string::npos)
      << applied(Saxpy, Props[0]);
}

TEST(GridStrideRule, BlocksPerSmFollowTheArchLimits) {
  // 64 threads: 2048 / 64 = 32 blocks, the per-SM block limit of sm_90.
  auto Props = propose(Saxpy, "saxpy", "grid-stride", {{"grid.x", "G"}}, 64);
  ASSERT_EQ(Props.size(), 1u);
  ASSERT_TRUE(Props[0].Spec.has_value());
  EXPECT_EQ(Props[0].Spec->Geometry.at("grid.x"), "min(G, 132 * FORGE_GRID_WAVES * 32)");
  // Without geometry there is nothing to change in the spec.
  Props = propose(Saxpy, "saxpy", "grid-stride");
  ASSERT_EQ(Props.size(), 1u);
  EXPECT_FALSE(Props[0].Spec.has_value());
}

TEST(VectorizeRule, SpecChangeDividesTheGrid) {
  auto Props = propose(Saxpy, "saxpy", "vectorize", {{"grid.x", "ceil_div(N, BLOCK)"}}, 256);
  ASSERT_EQ(Props.size(), 1u);
  ASSERT_TRUE(Props[0].Spec.has_value());
  std::string G = Props[0].Spec->Geometry.at("grid.x");
  // Divided by the vector width, not capped (one vector per thread was
  // faster on the H200; grid-stride proposes the cap).
  EXPECT_EQ(G, "ceil_div(ceil_div(N, BLOCK), 4)");
  EXPECT_TRUE(Props[0].Spec->NewTunables.empty());
  EXPECT_EQ(eval(G, {{"N", 1000}, {"BLOCK", 256}}), 1);
  EXPECT_EQ(eval(G, {{"N", 1 << 20}, {"BLOCK", 256}}), 1024);
  EXPECT_EQ(eval(G, {{"N", 1 << 26}, {"BLOCK", 256}}), 65536);
  std::string New = applied(Saxpy, Props[0]);
  EXPECT_NE(New.find("const float4 forge_x = reinterpret_cast<const float4 *>(x)[forge_v];"),
            std::string::npos)
      << New;
  EXPECT_NE(New.find("{ forge_y.w = a * forge_x.w + forge_y.w; }"), std::string::npos) << New;
}

/// One kernel of the elementwise table: whether grid-stride and vectorize
/// rewrite it, and a piece of the rewrite or of the reason.
struct ElementwiseCase {
  const char *Name;
  const char *Source;
  bool Rewritten;
  const char *Text;
};

// The same map in many spellings (mock headers: threadIdx.x is a plain
// member here), and kernels that must be declined with their reason.
const ElementwiseCase ElementwiseCases[] = {
    {"if-guard", R"(__global__ void k(const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i];
})",
     true, "i < n;"},
    {"swapped-index", R"(__global__ void k(const float *x, float *y, int n) {
  int i = threadIdx.x + blockDim.x * blockIdx.x;
  if (n > i) y[i] = 2.f * x[i];
})",
     true, "n > i;"},
    {"early-return", R"(__global__ void k(const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  y[i] = x[i] + 1.f;
})",
     true, "i < n;"},
    {"early-return-braced", R"(__global__ void k(const double *x, double *y, unsigned n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) { return; }
  double t = x[i];
  y[i] = t * t;
})",
     true, "i < n;"},
    {"not-less", R"(__global__ void k(const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (!(i < n)) return;
  y[i] = x[i];
})",
     true, "i < n;"},
    {"locals", R"(__global__ void k(const int *x, int *y, int n) {
  int t = threadIdx.x;
  int b = blockIdx.x;
  int gid = b * blockDim.x + t;
  if (gid < n) y[gid] = x[gid] * 3;
})",
     true, "gid < n;"},
    {"size_t-cast", R"(__global__ void k(const float *x, float *y, size_t n) {
  size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i];
})",
     true, "for (size_t i"},
    {"inclusive", R"(__global__ void k(const float *x, float *y, int last) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i <= last) y[i] = x[i];
})",
     true, "i <= last;"},
    {"compound", R"(__global__ void k(const float *x, float *y, int n, float lo) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && x[i] > lo) y[i] = x[i];
})",
     true, "if (x[i] > lo)"},
    {"compound-exit", R"(__global__ void k(const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n || x[i] == 0.f) return;
  y[i] = 1.f / x[i];
})",
     true, "if (x[i] == 0.f) continue;"},
    {"uniform-prologue", R"(__global__ void k(const float *x, float *y, int n, float a) {
  const float s = a * a;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = s * x[i];
})",
     true, "y[i] = s * x[i]"},
    {"thread-value", R"(__global__ void k(const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i] + threadIdx.x;
})",
     false, "threadIdx.x"},
    {"thread-varying-bound", R"(__global__ void k(const float *x, float *y, const int *len) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int n = len[blockIdx.x];
  if (i < n) y[i] = x[i];
})",
     false, ""},
    {"barrier", R"(__global__ void k(float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  y[i] = 0.f;
  __syncthreads();
})",
     false, "__syncthreads"},
    {"second-return", R"(__global__ void k(const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  if (x[i] < 0.f) return;
  y[i] = x[i];
})",
     false, "returns again"},
    {"atomic", R"(__global__ void k(const float *x, float *s, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(s, x[i]);
})",
     false, "atomic"},
    {"shared", R"(__global__ void k(const float *x, float *y, int n) {
  __shared__ float t[256];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) { t[threadIdx.x] = x[i]; y[i] = t[threadIdx.x]; }
})",
     false, "shared memory"},
    {"neighbour", R"(__global__ void k(const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i + 1 < n) y[i] = x[i + 1] - x[i];
})",
     false, ""},
};

TEST(ElementwiseRules, SpellingsTable) {
  for (const ElementwiseCase &C : ElementwiseCases) {
    SCOPED_TRACE(C.Name);
    for (const char *Rule : {"grid-stride", "vectorize"}) {
      SCOPED_TRACE(Rule);
      std::vector<RuleSkip> Skips;
      auto Props = propose(C.Source, "k", Rule, {{"grid.x", "ceil_div(n, 256)"}}, 256, &Skips);
      if (!C.Rewritten) {
        EXPECT_TRUE(Props.empty());
        ASSERT_EQ(Skips.size(), 1u);
        EXPECT_NE(Skips[0].Reason.find(C.Text), std::string::npos) << Skips[0].Reason;
        continue;
      }
      ASSERT_EQ(Props.size(), 1u) << (Skips.empty() ? "" : Skips[0].Reason);
      std::string New = applied(C.Source, Props[0]);
      EXPECT_EQ(New.find("error:"), std::string::npos) << New;
      EXPECT_NE(New.find("gridDim.x"), std::string::npos) << New;
      if (std::string(Rule) == "grid-stride")
        EXPECT_NE(New.find(C.Text), std::string::npos) << New;
      else
        EXPECT_NE(New.find("reinterpret_cast<"), std::string::npos) << New;
    }
  }
}

TEST(Rules, MockHeadersGiveTheSameShapes) {
  std::vector<RuleSkip> Skips;
  auto Props = propose(Saxpy, "saxpy", "restrict,unroll,launch-bounds", {}, 128, &Skips);
  ASSERT_EQ(Props.size(), 2u);
  EXPECT_EQ(Props[0].Origin, "expert:restrict");
  EXPECT_EQ(Props[1].Origin, "expert:launch-bounds");
  EXPECT_NE(applied(Saxpy, Props[1]).find("__global__ void __launch_bounds__(128) saxpy("),
            std::string::npos);
  ASSERT_EQ(Skips.size(), 1u);
  EXPECT_EQ(Skips[0].Rule, "unroll");
}

TEST(Rules, RestrictStaysAwayFromAliasedLaunches) {
  const char *Src = R"(
__global__ void add(const float *a, float *b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) b[i] += a[i];
}
void run(float *p, int n) { add<<<n / 256, 256>>>(p, p, n); }
)";
  std::vector<RuleSkip> Skips;
  EXPECT_TRUE(propose(Src, "add", "restrict", {}, std::nullopt, &Skips).empty());
  ASSERT_EQ(Skips.size(), 1u);
  EXPECT_NE(Skips[0].Reason.find("passes 'p' for both 'a' and 'b'"), std::string::npos)
      << Skips[0].Reason;
}

} // namespace
